#!/usr/bin/env node
// A `command` reviewer that is ESLint, unmodified, with its recommended rules:
// the changed JavaScript files named in the prompt's diff are linted in the
// checkout revloop gives (REVLOOP_REPO), and each error becomes a finding.
// It knows nothing of the corpus: what it scores is what ESLint finds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import { ESLint } from 'eslint';

const prompt = readFileSync(0, 'utf8');
const repo = process.env.REVLOOP_REPO ?? '.';
const files = [...new Set([...prompt.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]))].filter((f) =>
  /\.(m?js|cjs)$/.test(f),
);

// The globals a Node library or a browser script may use, so no-undef speaks only of real slips.
const names =
  'process console require module exports __dirname __filename Buffer setTimeout clearTimeout setInterval clearInterval setImmediate queueMicrotask globalThis window document navigator URL URLSearchParams TextEncoder TextDecoder AbortController structuredClone fetch performance Intl WeakRef FinalizationRegistry';
const globals = Object.fromEntries(names.split(' ').map((n) => [n, 'readonly']));

const eslint = new ESLint({
  cwd: repo,
  overrideConfigFile: true,
  overrideConfig: [
    js.configs.recommended,
    { languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals } },
    { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  ],
});
const results = files.length > 0 ? await eslint.lintFiles(files.map((f) => join(repo, f))) : [];
const findings = [];
for (const r of results)
  for (const m of r.messages) {
    if (m.severity !== 2 || !m.line) continue;
    findings.push({
      severity: 'MODERATE',
      file: r.filePath.slice(repo.length + 1),
      line: m.line,
      endLine: m.endLine && m.endLine >= m.line ? m.endLine : m.line,
      claim: `${m.ruleId ?? 'parse'}: ${m.message}`,
      violatedClause: `eslint recommended: ${m.ruleId ?? 'parsing'}`,
    });
  }
process.stdout.write(JSON.stringify({ verdict: findings.length ? 'findings' : 'pass', findings }));
