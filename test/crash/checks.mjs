// What every kill-harness trial must satisfy once its run is terminal. Each
// check returns violations as plain sentences; an empty list is a pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './template.mjs';
import { readLedger } from './trial.mjs';

/** Calls the crash template can have in flight at once: its two reviewers (template.mjs). */
const CALLS_IN_FLIGHT = 2;

const TERMINAL = new Set(['completed', 'failed', 'aborted', 'timed_out', 'unknown']);
/** Classes after which the same call key is legitimately called again. */
const REPLAYED = new Set(['unknown', 'unavailable', 'rate_limited', 'timeout', 'truncated']);

/** One line per agent invocation: `<ms> <pid> <role> <name> <round> <callKey>`. */
export function readInvocations(log) {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [at, pid, role, name, round, callKey] = l.split(' ');
      return { at: Number(at), pid: Number(pid), role, name, round, callKey };
    });
}

/**
 * Judges a finished trial. `expect` = { reviewers, calcLines, featureHead, outcomes, cli }.
 * Returns { violations, calls, reinvoked, unknownAttempts }.
 */
export function judge(trial, expect) {
  const v = [];
  const say = (s) => v.push(s);
  for (const p of trial.problems) say(p);
  const ledger = readLedger(trial.dir);
  if (!ledger) return { violations: [...v, 'no ledger'], calls: 0, reinvoked: 0, unknownAttempts: 0 };
  if (ledger.integrity !== 'ok') say(`PRAGMA integrity_check: ${ledger.integrity}`);
  if (ledger.runs.length !== 1) say(`${ledger.runs.length} runs in the ledger, expected 1`);
  const kills = trial.kills.filter((k) => !k.missed).length;

  for (const run of ledger.runs) {
    const id = run.id.slice(0, 10);
    if (!TERMINAL.has(run.status)) say(`run ${id} is ${run.status} after the last attempt`);
    const end = `${run.status}/${run.outcome ?? run.reason}`;
    if (!expect.outcomes.includes(end))
      say(`run ${id} ended ${end} (${run.detail ?? ''}); uncrashed runs end ${expect.outcomes.join(' or ')}`);
    const rounds = ledger.rounds.filter((r) => r.run_id === run.id);
    const last = rounds.reduce((m, r) => (r.round > m.round ? r : m), { round: 0 });
    const verdicts = ledger.verdicts.filter((x) => x.run_id === run.id);
    if (run.outcome === 'clear') {
      // Invariant 1: clear only when every configured reviewer completed on the final revision.
      if (last.head !== run.head)
        say(`clear run ${id}: final round ${last.round} reviewed ${last.head}, run head is ${run.head}`);
      for (const r of expect.reviewers) {
        const got = verdicts.find(
          (x) =>
            x.role === 'reviewer' && x.reviewer === r && x.round === last.round && x.revision === run.head,
        );
        if (!got) say(`clear run ${id}: no verdict of reviewer ${r} at the final head`);
        else if (JSON.parse(got.reply).verdict !== 'pass')
          say(`clear run ${id}: reviewer ${r} did not pass the final head`);
      }
    }
    // Invariant 6: one verdict per call key and per prompt.
    const byPrompt = new Map();
    for (const x of verdicts) {
      const k = `${x.round}:${x.stage}:${x.reviewer}:${x.prompt_digest}`;
      byPrompt.set(k, (byPrompt.get(k) ?? 0) + 1);
    }
    for (const [k, n] of byPrompt) if (n > 1) say(`run ${id}: ${n} verdicts for one prompt ${k}`);
    if (new Set(verdicts.map((x) => x.call_key)).size !== verdicts.length)
      say(`run ${id}: duplicate verdict call keys`);

    if (run.status === 'completed') {
      if (!run.record_path || !existsSync(run.record_path)) say(`completed run ${id} has no record on disk`);
      else {
        const bad = verifyRecord(trial.dir, run, expect.cli);
        if (bad) say(`record of ${id} does not verify: ${bad}`);
      }
      // Invariant 6: the crashed-and-resumed run's decisions replay from its verdicts.
      const r = spawnSync(process.execPath, [expect.cli, 'replay', id, '--json'], {
        cwd: trial.dir,
        encoding: 'utf8',
      });
      if (r.status !== 0)
        say(`run ${id}: replay exit ${r.status}: ${(r.stdout || r.stderr).trim().slice(0, 300)}`);
    }
  }

  // A finished run's fixes are held by its ref (its worktrees, which held them meanwhile, are gone).
  for (const run of ledger.runs) {
    if (!TERMINAL.has(run.status) || run.head === expect.featureHead) continue;
    const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/revloop/runs/${run.id}`], {
      cwd: trial.dir,
      encoding: 'utf8',
    });
    if (r.stdout.trim() !== run.head)
      say(
        `run ${run.id.slice(0, 10)}: head ${run.head.slice(0, 12)} but its ref holds ${r.stdout.trim() || 'nothing'}`,
      );
  }

  // Per call key: attempts numbered 1..n, every attempt but the last interrupted or
  // retryable, at most one `ok`, and never more invocations than attempts.
  const calls = new Map();
  for (const a of ledger.attempts) {
    const c = calls.get(a.call_key) ?? { attempts: [], inv: [] };
    c.attempts.push(a);
    calls.set(a.call_key, c);
  }
  const invocations = readInvocations(trial.log).filter((i) => i.callKey !== '-');
  for (const i of invocations) {
    const c = calls.get(i.callKey);
    if (!c)
      say(
        `agent ${i.role} ${i.name} was invoked under call key ${i.callKey.slice(0, 12)} with no attempt row`,
      );
    else c.inv.push(i);
  }
  let unknownAttempts = 0;
  let reinvoked = 0;
  for (const [key, c] of calls) {
    const k = key.slice(0, 12);
    const as = c.attempts;
    as.forEach((a, i) => {
      if (a.attempt_no !== i + 1) say(`call ${k}: attempt numbers ${as.map((x) => x.attempt_no).join(',')}`);
    });
    const ok = as.filter((a) => a.class === 'ok').length;
    if (ok > 1) say(`call ${k}: ${ok} attempts ended ok`);
    for (const a of as.slice(0, -1))
      if (!REPLAYED.has(a.class))
        say(`call ${k}: attempt ${a.attempt_no} ended ${a.class} and was followed by another`);
    if (as.some((a) => a.class === 'started'))
      say(`call ${k}: an attempt is still 'started' in a terminal run`);
    const unknown = as.filter((a) => a.class === 'unknown').length;
    unknownAttempts += unknown;
    if (c.inv.length > as.length) say(`call ${k}: ${c.inv.length} invocations for ${as.length} attempts`);
    reinvoked += Math.max(0, c.inv.length - 1);
    // A completed stage (and a recorded verdict) is never called again.
    const first = as[0];
    const stage = ledger.stages.find(
      (s) => s.run_id === first.run_id && s.round === first.round && s.stage === first.stage,
    );
    const verdict = ledger.verdicts.find((x) => x.call_key === key);
    for (const i of c.inv) {
      if (stage && i.at > stage.completed_at)
        say(`call ${k}: invoked after its ${first.stage} stage of round ${first.round} completed`);
      if (verdict && i.at > verdict.recorded_at) say(`call ${k}: invoked after its verdict was recorded`);
    }
  }
  // A kill interrupts every call in flight: the template's two reviewers run side by side
  // (review.concurrency defaults to all of them), every other call alone.
  if (unknownAttempts > kills * CALLS_IN_FLIGHT)
    say(
      `${unknownAttempts} attempts interrupted but only ${kills} kills (at most ${CALLS_IN_FLIGHT} calls in flight each)`,
    );

  for (const bad of partialCommits(trial.dir, expect.calcLines)) say(bad);
  const status = git(trial.dir, ['status', '--porcelain']);
  if (status) say(`the user's working tree changed: ${status.replace(/\n/g, '; ')}`);
  if (git(trial.dir, ['rev-parse', 'feature']) !== expect.featureHead) say('the feature branch moved');
  return { violations: v, calls: calls.size, reinvoked, unknownAttempts };
}

/** Every commit in the object store (dangling ones too) holds a whole src/calc.js. */
function partialCommits(dir, calcLines) {
  const out = [];
  const objects = git(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)']);
  for (const line of objects.split('\n')) {
    const [sha, type] = line.split(' ');
    if (type !== 'commit') continue;
    const r = spawnSync('git', ['show', `${sha}:src/calc.js`], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) continue;
    const n = r.stdout.split('\n').length;
    if (n !== calcLines) {
      const subject = git(dir, ['log', '-1', '--format=%s', sha]);
      if (subject !== 'calc: base')
        out.push(`commit ${sha.slice(0, 12)} (${subject}) holds a partial src/calc.js (${n} lines)`);
    }
  }
  return out;
}

/** `revloop verify RECORD --repo <checkout of the run's final head>`; null when it verifies. */
function verifyRecord(dir, run, cli) {
  const co = join(dir, '.verify-checkout');
  rmSync(co, { recursive: true, force: true });
  git(dir, ['worktree', 'add', '--detach', '--quiet', co, run.head]);
  try {
    const args = [
      cli,
      'verify',
      run.record_path,
      '--repo',
      co,
      '--key',
      join(dir, '.revloop/keys/signing.pub'),
    ];
    if (run.outcome !== 'clear') args.push('--allow-findings');
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
    return r.status === 0 ? null : `exit ${r.status}: ${(r.stderr || r.stdout).trim()}`;
  } finally {
    git(dir, ['worktree', 'remove', '--force', co]);
  }
}
