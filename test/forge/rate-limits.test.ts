/**
 * The forge's rate-limit headers reach `/metrics`: every answer of a real
 * octokit client (a refusal too) is noted, and the exposition carries the
 * latest reading per forge and resource.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { githubClient } from '../../src/forge/github/client.js';
import { forgetRateLimits, noteRateLimit, rateLimitReadings } from '../../src/forge/rate-limits.js';
import { createServeMetrics } from '../../src/serve/metrics.js';

afterEach(() => forgetRateLimits());

describe('forge rate limits', () => {
  it("an octokit client notes the limit of every answer, a 404 included, by GitHub's headers", async () => {
    let remaining = 4999;
    const server = createServer((req, res) => {
      const found = req.url?.startsWith('/repos/acme/widgets/pulls/7');
      res.writeHead(found ? 200 : 404, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': String(remaining--),
        'x-ratelimit-reset': '1893456000',
        'x-ratelimit-resource': 'core',
      });
      res.end(found ? JSON.stringify({ number: 7 }) : JSON.stringify({ message: 'Not Found' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const gh = githubClient({
        token: 'ghs_test',
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        retries: 0,
        paceWrites: false,
      });
      await gh.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 7 });
      expect(rateLimitReadings()).toEqual([
        { forge: 'github', resource: 'core', remaining: 4999, limit: 5000, resetAt: 1893456000 },
      ]);
      await expect(gh.rest.pulls.get({ owner: 'acme', repo: 'gone', pull_number: 1 })).rejects.toThrow();
      expect(rateLimitReadings()[0]?.remaining).toBe(4998);
    } finally {
      server.close();
    }
  });

  it('an answer without the headers, or with nonsense in them, changes nothing', () => {
    noteRateLimit('github', { 'x-ratelimit-remaining': '10', 'x-ratelimit-limit': '60' });
    noteRateLimit('github', {});
    noteRateLimit('github', { 'x-ratelimit-remaining': 'lots', 'x-ratelimit-limit': '60' });
    noteRateLimit('github', undefined);
    expect(rateLimitReadings()).toEqual([
      { forge: 'github', resource: 'core', remaining: 10, limit: 60, resetAt: 0 },
    ]);
  });

  it('/metrics shows the remaining requests and the reset time per forge and resource', () => {
    noteRateLimit('github', {
      'x-ratelimit-remaining': '12',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-reset': '1893456000',
      'x-ratelimit-resource': 'graphql',
    });
    const text = createServeMetrics().render(null);
    const families = parsePrometheusTextFormat(text) as {
      name: string;
      metrics: { value: string; labels?: Record<string, string> }[];
    }[];
    const remaining = families.find((f) => f.name === 'revloop_forge_rate_limit_remaining');
    expect(remaining?.metrics).toEqual([{ value: '12', labels: { forge: 'github', resource: 'graphql' } }]);
    const reset = families.find((f) => f.name === 'revloop_forge_rate_limit_reset_timestamp_seconds');
    expect(reset?.metrics[0]?.value).toBe('1893456000');
  });
});
