// What the campaign judges once its runs are over, from the ledger, the record files and
// the workers' exits. Each check returns sentences; the counts are what the targets are on.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { git, gitEnv } from '../crash/template.mjs';
import { CRASH_TEXT } from './workers.mjs';

/**
 * A run taken over on a clone that lacks the commit its fixer made on another: the ledger holds
 * the fix commit's SHA, not the commit, so the run ends unknown (docs/scale.md). Named apart
 * in the summary: a known gap, still a run lost.
 */
export const FIX_ELSEWHERE = '(its fix commit is on another clone)';
/** How it ends: the next stage meets the head it cannot find, or the fix stage read back finds its commit gone. */
const FIX_MISSING = /unknown ref "[0-9a-f]{40}"|fix commit [0-9a-f]{40} is gone from the repository/;

const TERMINAL = new Set(['completed', 'failed', 'aborted', 'timed_out', 'unknown']);

export async function readLedger(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const q = async (sql) => (await c.query(sql)).rows;
    return {
      runs: await q('SELECT * FROM runs ORDER BY created_at, seq'),
      rounds: await q('SELECT run_id, round, head FROM rounds'),
      verdicts: await q(
        'SELECT run_id, round, stage, role, reviewer, revision, call_key, prompt_digest, reply, cost_usd FROM verdicts',
      ),
      envelopes: new Map(
        (await q('SELECT run_id, envelope FROM run_records')).map((r) => [r.run_id, r.envelope]),
      ),
    };
  } finally {
    await c.end();
  }
}

/**
 * Judges the campaign. `o` = { url, cli, clones, reviewers, exits, expected: admitted run ids }.
 * Returns { safety, lost, crashes, recordsMissing } (lists of sentences) and { outcomes }.
 */
export async function judge(o) {
  const ledger = await readLedger(o.url);
  const safety = [];
  const lost = [];
  const recordsMissing = [];
  const outcomes = {};
  const perClone = new Map();
  const byId = new Map(ledger.runs.map((r) => [r.id, r]));
  for (const id of o.expected)
    if (!byId.has(id)) lost.push(`run ${id} was admitted but is not in the ledger`);
  for (const run of ledger.runs) {
    const id = run.id;
    const end = `${run.status}/${run.outcome ?? run.reason ?? '-'}`;
    outcomes[end] = (outcomes[end] ?? 0) + 1;
    // Every agent here is deterministic and never fails: a run that did not complete lost to a fault.
    if (!TERMINAL.has(run.status)) lost.push(`run ${id} is still ${run.status} at the end of the campaign`);
    else if (run.status !== 'completed')
      lost.push(
        `run ${id} ended ${end}: ${run.detail ?? ''}${FIX_MISSING.test(run.detail ?? '') ? ` ${FIX_ELSEWHERE}` : ''}`,
      );
    const verdicts = ledger.verdicts.filter((v) => v.run_id === id);
    const rounds = ledger.rounds.filter((r) => r.run_id === id);
    const last = rounds.reduce((m, r) => (r.round > m.round ? r : m), { round: 0 });
    if (run.outcome === 'clear') {
      // Invariant 1: clear only with every reviewer's passing verdict on the final revision.
      if (last.head !== run.head) safety.push(`clear run ${id}: its final round reviewed another head`);
      for (const r of o.reviewers) {
        const got = verdicts.find(
          (v) =>
            v.role === 'reviewer' && v.reviewer === r && v.round === last.round && v.revision === run.head,
        );
        if (!got) safety.push(`clear run ${id}: no verdict of reviewer ${r} at the final head`);
        else if ((typeof got.reply === 'string' ? JSON.parse(got.reply) : got.reply).verdict !== 'pass')
          safety.push(`clear run ${id}: reviewer ${r} did not pass the final head`);
      }
    }
    // A write under a stale token would show as a second verdict for one call or one prompt.
    if (new Set(verdicts.map((v) => v.call_key)).size !== verdicts.length)
      safety.push(`run ${id}: one call key recorded twice`);
    const prompts = verdicts.map((v) => `${v.round}:${v.stage}:${v.reviewer}:${v.prompt_digest}`);
    if (new Set(prompts).size !== prompts.length) safety.push(`run ${id}: two verdicts for one prompt`);
    // Cost is counted once per verdict: never more on the run than its verdicts add up to.
    const spent = verdicts.reduce((s, v) => s + Number(v.cost_usd), 0);
    if (Number(run.cost_usd) > spent + 1e-9)
      safety.push(`run ${id}: cost ${run.cost_usd} recorded over its verdicts' ${spent}`);
    if (run.status !== 'completed') continue;
    // Every machine gets a completed run's record from the ledger's signed envelope (status,
    // resume and verify --run write it there): one the ledger lacks is missing on every machine.
    const envelope = ledger.envelopes.get(id);
    if (!envelope) {
      const files = o.clones.filter((c) => existsSync(join(c, '.revloop/records', `${id}.json`)));
      recordsMissing.push(
        `completed run ${id} has no signed record in the ledger${files.length ? `; a record file is only in ${files.join(', ')}` : ''}`,
      );
      continue;
    }
    // Verified on a clone that has its final head (a fix made on the other clone is imported there).
    const clone = o.clones.find((c) => hasCommit(c, run.head));
    if (!clone) {
      safety.push(`completed run ${id}: its head ${run.head} is on no clone`);
      continue;
    }
    (perClone.get(clone) ?? perClone.set(clone, []).get(clone)).push({ ...run, envelope });
  }
  // verify and replay, one lane per clone (a clone's worktrees are made one at a time).
  await Promise.all(
    [...perClone].map(async ([clone, runs]) => {
      for (const run of runs) {
        const bad = await verifyRecord(clone, run, o.cli, o.clones);
        if (bad) safety.push(`record of ${run.id} does not verify: ${bad}`);
        const r = await runNode([o.cli, 'replay', run.id, '--json', '--store', o.url], clone);
        if (r.code !== 0)
          safety.push(`run ${run.id}: replay exit ${r.code}: ${(r.stdout || r.stderr).trim().slice(0, 200)}`);
      }
    }),
  );
  return { safety, lost, recordsMissing, crashes: crashesOf(o.exits), outcomes, ledger };
}

/**
 * A worker exit that is not the campaign's doing or a designed refusal: any exit but our
 * SIGKILL, our SIGTERM's exit 0, and exit 5 with one line naming the ledger (read-only or
 * full: revloop does not wait for those); and any uncaught error or stack on stderr.
 */
export function crashesOf(exits) {
  const out = [];
  for (const e of exits) {
    const where = `worker ${e.slot} (${e.log})`;
    if (CRASH_TEXT.test(e.stderr)) out.push(`${where}: a stack or uncaught error on stderr`);
    if (e.signal === 'SIGKILL' && e.killedByUs) continue;
    if (e.stopped && e.code === 0) continue;
    if (e.code === 5 && /ledger|postgres:\/\//i.test(e.stderr.trim().split('\n').at(-1) ?? '')) continue;
    out.push(`${where}: exited ${e.signal ?? `code ${e.code}`}: ${e.stderr.trim().split('\n').at(-1) ?? ''}`);
  }
  return out;
}

/** `revloop verify <the ledger's envelope> --repo <checkout of the run's final head>` in a clone that has it. */
async function verifyRecord(clone, run, cli, clones) {
  const co = join(clone, '.revloop', `verify-${run.id}`);
  rmSync(co, { recursive: true, force: true });
  git(clone, ['worktree', 'add', '--detach', '--quiet', co, run.head]);
  try {
    const file = join(clone, '.revloop', `verify-${run.id}.json`);
    writeFileSync(file, run.envelope);
    // Each clone signs with its own key: either may have signed it.
    const keys = clones.flatMap((c) => ['--key', join(c, '.revloop/keys/signing.pub')]);
    const args = [cli, 'verify', file, '--repo', co, ...keys];
    if (run.outcome !== 'clear') args.push('--allow-findings');
    const r = await runNode(args, clone);
    return r.code === 0 ? null : `exit ${r.code}: ${(r.stderr || r.stdout).trim().slice(0, 200)}`;
  } finally {
    git(clone, ['worktree', 'remove', '--force', co]);
  }
}

export function runNode(args, cwd) {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, env: gitEnv(), maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      done({ code: err ? (err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Whether `clone` has commit `sha` (a fix made on another clone is there once imported). */
function hasCommit(clone, sha) {
  try {
    execFileSync('git', ['cat-file', '-e', `${sha}^{commit}`], {
      cwd: clone,
      env: gitEnv(),
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}
