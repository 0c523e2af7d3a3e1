// The campaign's `revloop worker` processes: slot i runs in clone i % clones, and a worker
// that exits (killed by the campaign, or given up on a read-only or full ledger) is started
// again, as a supervisor would. Every exit is kept, with its stderr, for the crash check.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitEnv } from '../crash/template.mjs';

/** What a worker's stderr must never hold: an uncaught error or a stack frame. */
export const CRASH_TEXT = /Unhandled|uncaught|^\s+at .+[:(].*\d+:\d+\)?$/im;

export function startWorkers(o) {
  const exits = [];
  const slots = [];
  let stopping = false;
  let seq = 0;

  const launch = (i) => {
    const n = seq++;
    const log = join(o.logDir, `worker-${i}-${n}.log`);
    const child = spawn(
      process.execPath,
      [
        o.cli,
        'worker',
        '--store',
        o.url,
        '--concurrency',
        String(o.concurrency),
        '--lease-seconds',
        String(o.leaseSeconds),
        '--store-patience',
        String(o.patienceSeconds),
      ],
      { cwd: o.clones[i % o.clones.length], env: gitEnv(o.agentEnv), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const slot = { child, killedByUs: false, log, started: Date.now() };
    slots[i] = slot;
    // 'close': the process is gone and its stderr read to the end.
    child.on('close', (code, signal) => {
      writeFileSync(log, stderr);
      exits.push({ slot: i, code, signal, killedByUs: slot.killedByUs, stopped: stopping, stderr, log });
      if (!stopping) setTimeout(() => !stopping && launch(i), 300);
    });
  };
  for (let i = 0; i < o.workers; i++) launch(i);

  return {
    exits,
    /** SIGKILL of worker i (the supervisor starts another). */
    kill(i) {
      const s = slots[i];
      if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return 'worker not running';
      s.killedByUs = true;
      s.child.kill('SIGKILL');
      return null;
    },
    /** SIGSTOP of worker i for `ms` (past its lease), then SIGCONT. */
    async freeze(i, ms) {
      const s = slots[i];
      if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return 'worker not running';
      s.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, ms));
      s.child.kill('SIGCONT');
      return null;
    },
    /** SIGTERM to every worker; resolves when all have exited and their logs are read. */
    async stop() {
      stopping = true;
      const live = slots.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
      const before = exits.length;
      for (const s of live) s.child.kill('SIGTERM');
      const deadline = Date.now() + 120_000;
      while (exits.length < before + live.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      for (const s of live)
        if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    },
  };
}
