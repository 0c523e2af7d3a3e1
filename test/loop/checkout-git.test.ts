/**
 * revloop's own git never reads configuration, hooks, filters or fsmonitor
 * from anything a role could write. A real fixer process makes its edit and
 * also points its checkout's `.git` at a git dir of its own, whose config
 * defines a `filter.x.clean` command, with a `.gitattributes` that uses it:
 * git discovering the repository from the checkout would run the command when
 * revloop stages the edit. It never runs, the fix is refused in one line,
 * nothing of it lands, and the run does not end clear. Real git, real
 * processes, the real SQLite ledger.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
const scratch = mkdtempSync(join(tmpdir(), 'revloop-checkout-git-'));
beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The fixer: fixes the file, then rewrites `.git` to a repository of its own with a clean filter.
const HOSTILE_FIXER = `
const fs = require('node:fs'), path = require('node:path'), { execFileSync } = require('node:child_process');
const [marker, fixed] = process.argv.slice(1);
fs.readFileSync(0);
fs.writeFileSync('src/calc.js', fixed);
const own = path.join(process.cwd(), 'own', '.git');
execFileSync('git', ['init', '-q', path.dirname(own)]);
fs.appendFileSync(path.join(own, 'config'), '[filter "x"]\\n\\tclean = touch ' + marker + ' && cat\\n\\tsmudge = cat\\n');
fs.writeFileSync('.gitattributes', '* filter=x\\n');
fs.rmSync('.git', { force: true, recursive: true });
fs.writeFileSync('.git', 'gitdir: ' + own + '\\n');
process.stdout.write(JSON.stringify({ disputed: [] }));
`;

describe("revloop's git in a role's checkout", () => {
  it('a fixer that rewrites .git to a filter of its own: the filter never runs, the fix is refused', async () => {
    const marker = join(scratch, 'filter-ran');
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, { fixer: { command: [process.execPath, '-e', HOSTILE_FIXER, marker, FIXED_FILE] } }),
    });
    repos.push(r);
    r.plan({ reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(existsSync(marker), 'the clean filter the fixer defined ran').toBe(false);
      expect(report.run.outcome).not.toBe('clear');
      expect(report.run.status).toBe('failed');
      expect(report.run.detail ?? '').toContain('.git was written in the checkout');
      expect((report.run.detail ?? '').split('\n')).toHaveLength(1);
      // Nothing of the edit landed: the run is still at the change's head.
      expect(report.run.head).toBe(r.head);
      expect(report.stages.some((s) => s.stage === 'fix')).toBe(false);
    } finally {
      await p.close();
    }
  });
});

// A formatter run without --check: rewrites the change's file in its checkout, then passes.
const FORMATTER = `
const fs = require('node:fs');
fs.readFileSync(0);
fs.writeFileSync('src/calc.js', process.argv[1]);
process.stdout.write(JSON.stringify({ verdict: 'pass', findings: [] }));
`;
// A reviewer that passes only the formatted file; the change's own file has the race.
const STRICT = `
const fs = require('node:fs');
fs.readFileSync(0);
const ok = fs.readFileSync('src/calc.js', 'utf8') === process.argv[1];
process.stdout.write(JSON.stringify(ok ? { verdict: 'pass', findings: [] } : { verdict: 'findings', findings: [${JSON.stringify(raceFinding())}] }));
`;

// A reviewer that edits a tracked file and points `.git` at a git dir of its own with a clean
// filter: a status that discovered the repository from the checkout would run the filter.
const HOSTILE_REVIEWER = HOSTILE_FIXER.replace(
  'process.stdout.write(JSON.stringify({ disputed: [] }));',
  "process.stdout.write(JSON.stringify({ verdict: 'pass', findings: [] }));",
);

describe('reviewers read exactly the revision under review', () => {
  it("a reviewer that rewrites .git: revloop's status never runs its filter, and its call fails", async () => {
    const marker = join(scratch, 'reviewer-filter-ran');
    const r = await makeReviewRepo({
      config: () => baseConfig({ command: [process.execPath, '-e', HOSTILE_REVIEWER, marker, FIXED_FILE] }),
    });
    repos.push(r);
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(existsSync(marker), 'the clean filter the reviewer defined ran').toBe(false);
      expect(report.run.outcome).not.toBe('clear');
      expect(report.run.detail ?? '').toContain('its checkout changed during the call');
      expect(report.run.detail ?? '').toContain('.git');
    } finally {
      await p.close();
    }
  });

  for (const concurrency of [1, 2]) {
    it(`a reviewer that rewrites the file under review fails its call, so the run never ends clear (concurrency ${concurrency})`, async () => {
      const r = await makeReviewRepo({
        config: () =>
          baseConfig(
            { command: [] },
            {
              reviewers: [
                { name: 'formatter', command: [process.execPath, '-e', FORMATTER, FIXED_FILE] },
                { name: 'strict', command: [process.execPath, '-e', STRICT, FIXED_FILE] },
              ],
              review: { concurrency },
            },
          ),
      });
      repos.push(r);
      const p = await inProcess(r.dir);
      try {
        const { report } = await review(p, r.dir);
        expect(report.run.outcome).not.toBe('clear');
        expect(report.run.status, report.run.detail ?? '').toBe('failed');
        expect(report.run.detail ?? '').toContain('its checkout changed during the call (src/calc.js)');
      } finally {
        await p.close();
      }
    });
  }
});

// The base's reviewer: a script that imports its rules and applies them to the checkout.
const REVIEW_MJS = `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verdict } from './rules.mjs';
readFileSync(0);
process.stdout.write(JSON.stringify(verdict(readFileSync(join(process.env.REVLOOP_REPO, 'src/calc.js'), 'utf8'))));
`;
const RULES_MJS = `export function verdict(code) {
  if (!code.includes('const seen = total;')) return { verdict: 'pass', findings: [] };
  return { verdict: 'findings', findings: [${JSON.stringify(raceFinding())}] };
}
`;

describe("the judge's code comes from the base", () => {
  it('a change that edits a file the configured reviewer imports cannot make it pass', async () => {
    const r = await makeReviewRepo({
      config: () => baseConfig({ command: ['node', 'tools/review.mjs'] }),
      files: { 'tools/review.mjs': REVIEW_MJS, 'tools/rules.mjs': RULES_MJS },
      change: {
        'src/calc.js': HEAD_FILE,
        'tools/rules.mjs': "export const verdict = () => ({ verdict: 'pass', findings: [] });\n",
      },
    });
    repos.push(r);
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run.outcome, report.run.detail ?? '').not.toBe('clear');
      expect(report.run.outcome).toBe('findings');
      expect(report.findings.map((f) => f.reported.claim)).toContain(raceFinding().claim);
    } finally {
      await p.close();
    }
  });
});
