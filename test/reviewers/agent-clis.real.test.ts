/**
 * Issue 15, points 5 to 7: the real Claude Code and Codex binaries, run
 * through revloop's own claude-code and codex adapters against a loopback
 * model server, with no network but that server (a network namespace with
 * only loopback where the machine allows one; the server as the only proxy,
 * refusing every other host, always). A rate limit or an outage inside the
 * CLI is `rate_limited` / `unavailable` and retried; a rerouted model is
 * `model_drift`; a malformed reply, an error and a hang are never a pass.
 *
 * Skipped, saying why and how to install them, when the CLIs are not in
 * `$REVLOOP_AGENT_CLIS/node_modules/.bin` (default ~/.cache/revloop-agent-clis).
 *
 * `REVLOOP_CAPTURE_AGENT_FIXTURES=1` also saves what each CLI printed under
 * test/fixtures/agent-clis/, the fixtures the Reviewer port contract replays (test/reviewers/contract/).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/core/config.js';
import { claudeCodeArgv } from '../../src/reviewers/claude-code.js';
import { codexArgv } from '../../src/reviewers/codex.js';
import { createReviewer } from '../../src/reviewers/index.js';
import {
  CLAUDE_CODE_VERSION,
  CODEX_VERSION,
  claudeEnv,
  cleanupAgentHomes,
  codexEnv,
  findAgentClis,
  isolatedCommand,
  netnsAvailable,
} from '../helpers/agent-clis.js';
import {
  type AgentModelServer,
  answers,
  type ModelAnswer,
  startAgentModelServer,
} from '../helpers/agent-model-server.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  makeReviewRepo,
  pass as passReply,
  type ReviewRepo,
  raceFinding,
  runCli,
  testEnv,
} from '../loop/helpers.js';
import { callRequest, cleanupDirs } from './call-request.js';

const clis = findAgentClis();
if (!clis.found) console.warn(`agent-clis.real.test.ts skipped: ${clis.why}`);
const capture = process.env.REVLOOP_CAPTURE_AGENT_FIXTURES === '1';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'agent-clis');

const CLAUDE_PIN = 'claude-loopback-pin';
const CODEX_PIN = 'gpt-loopback-pin';
const pass = { verdict: 'pass', findings: [] };
const found = {
  verdict: 'findings',
  findings: [
    {
      severity: 'MAJOR',
      file: 'src/calc.js',
      line: 1,
      claim: 'add ignores a missing argument',
      failureScenario: 'add(1) returns NaN instead of failing',
    },
  ],
};
// A deadline long enough for a slow, shared machine; only the hang case meets it.
const CALL_MS = 90_000;
const HANG_MS = 8_000;
const FIXER_HOMES = '/var/tmp/revloop-agent-homes';

type Cli = 'claude-code' | 'codex';

let server: AgentModelServer;
let repo: TestRepo;
let netns = false;
const reviewRepos: ReviewRepo[] = [];

describe.skipIf(!clis.found)(
  `real agent CLIs (Claude Code ${CLAUDE_CODE_VERSION}, Codex ${CODEX_VERSION})`,
  () => {
    beforeAll(async () => {
      server = await startAgentModelServer();
      netns = netnsAvailable();
      if (!netns)
        console.warn(
          'agent CLIs run without a network namespace: only refusing proxies keep them on loopback',
        );
      repo = await makeRepo();
      repo.write('src/calc.js', 'export function add(a, b) {\n  return a + b;\n}\n');
      repo.commit('base');
      ensureBuilt();
    }, 180_000);
    afterAll(async () => {
      for (const r of reviewRepos) await r.cleanup();
      await repo?.cleanup();
      await server?.close();
      cleanupDirs();
      cleanupAgentHomes();
    });

    const cliPath = (cli: Cli) => (clis.found ? (cli === 'claude-code' ? clis.claude : clis.codex) : '');
    const envOf = (cli: Cli) => (cli === 'claude-code' ? claudeEnv(server) : codexEnv(server));
    const cfgOf = (cli: Cli): AgentConfig => ({
      adapter: cli,
      command: isolatedCommand(server, cliPath(cli), netns),
      model: cli === 'claude-code' ? CLAUDE_PIN : CODEX_PIN,
      // The loopback provider's key (codexEnv): a variable Codex's own names do not cover.
      ...(cli === 'codex' ? { env: ['LOOPBACK_MODEL_KEY'] } : {}),
    });

    /** One call through the real adapter; with capture on, the same argv is run once more raw and saved. */
    async function call(cli: Cli, name: string, queued: ModelAnswer[], deadlineMs = CALL_MS) {
      const env = envOf(cli);
      if (capture) {
        server.push(...queued);
        await saveFixture(cli, name, env, deadlineMs);
      }
      const before = server.requests.length;
      server.push(...queued);
      const reviewer = createReviewer(cfgOf(cli), { role: 'reviewer', name: 'cli', repoRoot: repo.dir, env });
      const result = await reviewer.call(
        callRequest({ name: 'cli', repoDir: repo.dir, deadlineMs: Date.now() + deadlineMs }),
      );
      const requests = server.requests.slice(before);
      // Every case queues exactly what its CLI asks for; a leftover answer must not answer the next case.
      expect(
        requests.filter((r) => r.answer === 'none'),
        `${cli} ${name}: asked more than was queued`,
      ).toEqual([]);
      const left = server.clear();
      expect(left, `${cli} ${name}: answers left unasked`).toBe(0);
      return { result, requests };
    }

    async function saveFixture(cli: Cli, name: string, env: NodeJS.ProcessEnv, deadlineMs: number) {
      const cfg = cfgOf(cli);
      const argv = cli === 'claude-code' ? claudeCodeArgv(cfg, 'reviewer') : codexArgv(cfg, 'reviewer');
      const out = await runRaw(argv, env, repo.dir, 'Review this diff. Reply with JSON only.', deadlineMs);
      const dir = join(FIXTURES, cli);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.stdout`), out.stdout);
      const cliArgs = argv.slice(argv.indexOf(cliPath(cli)) + 1);
      writeFileSync(
        join(dir, `${name}.json`),
        `${JSON.stringify(
          {
            cli,
            version: cli === 'claude-code' ? CLAUDE_CODE_VERSION : CODEX_VERSION,
            argv: [cli === 'claude-code' ? 'claude' : 'codex', ...cliArgs],
            exitCode: out.code,
            signal: out.signal,
            killedAtDeadline: out.killed,
          },
          null,
          2,
        )}\n`,
      );
    }

    for (const cli of ['claude-code', 'codex'] as const) {
      describe(cli, () => {
        it('a pass and a finding are replies; the pinned model is recorded, cost comes from the CLI', async () => {
          const ok = await call(cli, 'success', [answers.json(pass)]);
          expect(ok.result, JSON.stringify(ok.result)).toMatchObject({ ok: true, reply: pass });
          if (ok.result.ok) expect(ok.result.modelId).toBe(cli === 'claude-code' ? CLAUDE_PIN : CODEX_PIN);
          expect(ok.requests.map((r) => r.model)).toEqual([cli === 'claude-code' ? CLAUDE_PIN : CODEX_PIN]);
          const f = await call(cli, 'findings', [answers.json(found)]);
          expect(f.result, JSON.stringify(f.result)).toMatchObject({
            ok: true,
            reply: { verdict: 'findings', findings: [{ severity: 'MAJOR', file: 'src/calc.js', line: 1 }] },
          });
        }, 240_000);

        it('a 429 inside the CLI is rate_limited, a 5xx or overload is unavailable: both retried, never failed', async () => {
          // Codex retries a failed stream once (stream_max_retries = 1) before it gives up, also on a 429.
          const tooMany = answers.status(
            429,
            cli === 'codex' ? 'rate_limit_exceeded' : 'rate_limit_error',
            'slow down',
          );
          const limited = await call(cli, '429', cli === 'codex' ? [tooMany, tooMany] : [tooMany]);
          expect(limited.result, JSON.stringify(limited.result)).toMatchObject({
            ok: false,
            class: 'rate_limited',
          });
          // Codex retries a failed stream once (stream_max_retries = 1) before it gives up.
          const fiveHundred =
            cli === 'codex'
              ? [answers.status(500, 'server_error'), answers.status(500, 'server_error')]
              : [answers.status(500, 'api_error', 'boom')];
          const down = await call(cli, '500', fiveHundred);
          expect(down.result, JSON.stringify(down.result)).toMatchObject({ ok: false, class: 'unavailable' });
          const over =
            cli === 'claude-code'
              ? await call(cli, '529-overloaded', [answers.status(529, 'overloaded_error', 'Overloaded')])
              : await call(cli, '503', [
                  answers.status(503, 'service_unavailable', 'down for a moment'),
                  answers.status(503, 'service_unavailable', 'down for a moment'),
                ]);
          expect(over.result, JSON.stringify(over.result)).toMatchObject({ ok: false, class: 'unavailable' });
        }, 240_000);

        it('a rerouted model is model_drift, not a pass', async () => {
          const other = cli === 'claude-code' ? 'claude-loopback-other' : 'gpt-loopback-other';
          const r = await call(cli, 'rerouted', [answers.json(pass, other)]);
          expect(r.result, JSON.stringify(r.result)).toMatchObject({
            ok: false,
            class: 'model_drift',
            detail: expect.stringContaining(other),
          });
        }, 240_000);

        it('a malformed reply is malformed; a hang is killed at the deadline as a timeout', async () => {
          const prose = await call(cli, 'malformed', [answers.ok('Looks good to me, ship it.')]);
          expect(prose.result, JSON.stringify(prose.result)).toMatchObject({ ok: false, class: 'malformed' });
          const hung = await call(cli, 'hang', [answers.hang()], HANG_MS);
          expect(hung.result, JSON.stringify(hung.result)).toMatchObject({ ok: false, class: 'timeout' });
        }, 240_000);

        it('through `revloop review`: a 429 is retried under the same call key, then the run ends on the reply', async () => {
          const r = await makeReviewRepo({
            config: (agent) => baseConfig(agent, { reviewers: [{ name: 'cli', ...cfgOf(cli) }] }),
          });
          reviewRepos.push(r);
          const before = server.requests.length;
          const tooMany = answers.status(429, 'rate_limit_error', 'slow down');
          // Codex's own stream retry meets the second 429, so the 429 reaches revloop from both CLIs.
          server.push(
            ...(cli === 'codex' ? [tooMany, tooMany] : [tooMany]),
            answers.json({ verdict: 'findings', findings: [raceFinding()] }),
          );
          const res = await runCli(['review', '--head', 'topic', '--json'], {
            cwd: r.dir,
            env: testEnv(envOf(cli)),
            timeoutMs: 180_000,
          });
          expect(res.code, res.stderr).toBe(1);
          expect(res.json).toMatchObject({ status: 'completed', outcome: 'findings' });
          // Two runs of the CLI (two sessions): revloop retried the rate-limited attempt once.
          const sessions = new Set(server.requests.slice(before).map((q) => q.session));
          expect(sessions.size).toBe(2);
          expect(server.pending()).toBe(0);
        }, 240_000);

        it('as the fixer through `revloop review`: its edit lands in the fix commit and the run ends clear', async () => {
          const r = await makeReviewRepo({
            config: (agent) => baseConfig(agent, { fixer: cfgOf(cli) }),
          });
          reviewRepos.push(r);
          r.plan({ reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: passReply }] });
          const path = (cwd: string) => join(cwd, 'src', 'calc.js');
          // The edit through the CLI's own tools: Claude Code reads, then writes; Codex runs a command.
          server.push(
            ...(cli === 'claude-code'
              ? [
                  answers.tool('Read', (cwd) => ({ file_path: path(cwd) })),
                  answers.tool('Write', (cwd) => ({ file_path: path(cwd), content: FIXED_FILE })),
                ]
              : [
                  answers.tool('exec_command', () => ({
                    cmd: `cat > src/calc.js <<'EOF'\n${FIXED_FILE}EOF\n`,
                  })),
                ]),
            answers.json({ disputed: [] }),
          );
          // Codex runs a command through its own Linux sandbox, whose helper it will not install
          // under a temp dir: its home is then elsewhere.
          const env = cli === 'codex' ? codexEnv(server, FIXER_HOMES) : envOf(cli);
          const res = await runCli(['review', '--head', 'topic', '--json'], {
            cwd: r.dir,
            env: testEnv(env),
            timeoutMs: 180_000,
          });
          expect(res.json, res.stdout + res.stderr).toMatchObject({ status: 'completed', outcome: 'clear' });
          expect(res.code, res.stderr).toBe(0);
          expect(server.pending()).toBe(0);
          const head = String((res.json as { finalHead?: unknown }).finalHead ?? '');
          expect(head).not.toBe(r.head);
          expect(r.repo.git(['show', `${head}:src/calc.js`])).toBe(FIXED_FILE.replace(/\n$/, ''));
        }, 240_000);
      });
    }

    it('what tried to leave the machine met the refusing proxy (Codex asks for chatgpt.com and github.com)', () => {
      // Refused by construction; in the network namespace there is no route out either.
      // Listed so a new CLI version's new destinations show up in the log.
      const hosts = [...new Set(server.egress)].sort();
      if (hosts.length > 0) console.info(`agent CLIs tried, and were refused: ${hosts.join(', ')}`);
      for (const h of hosts) expect(h).not.toMatch(/^(127\.0\.0\.1|localhost):/);
    });
  },
);

/** Runs argv as revloop would (no shell, prompt on stdin), killed at the deadline; for capturing fixtures. */
function runRaw(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  stdin: string,
  deadlineMs: number,
): Promise<{ stdout: string; code: number | null; signal: string | null; killed: boolean }> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    const child = spawn(file ?? '', args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, deadlineMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stdin.end(stdin);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), code, signal, killed });
    });
  });
}
