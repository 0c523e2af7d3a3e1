// diffDigest on a diff of 50 MB and more: time against `git diff | sha256sum`
// with the same canonical command, and peak memory of our run (the diff must
// be streamed, never held). Both measured in the same run, alternating.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const distGit = pathToFileURL(join(here, '..', 'dist', 'git', 'index.js')).href;

const FILES = 160;
const LINES_PER_FILE = 6500; // ~42 bytes a line: ~44 MB a side, a diff of ~55 MB
const REPS = 7;
const TARGET_RATIO = 1.3;
const TARGET_RSS_MB = 100;
const MIN_DIFF_MB = 50;

const ENV = {
  ...process.env,
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
};

/** Runs a command; resolves with stdout (string) and the wall time in ms. */
function run(cmd, args, { input, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0)
        reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')} exited ${code}: ${err.slice(0, 300)}`));
      else resolve({ stdout: Buffer.concat(out).toString('utf8'), ms });
    });
    if (input) input(child.stdin);
    else child.stdin.end();
  });
}

/** A deterministic text file: lines of pseudo-random words; `variant` rewrites every 4th line. */
function fileText(fileIndex, variant) {
  let s = (fileIndex + 1) * 2654435761;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta', 'lambda', 'zeta'];
  const lines = [];
  for (let i = 0; i < LINES_PER_FILE; i++) {
    const r = next();
    let line = `${i} ${words[r % 10]} ${words[(r >>> 4) % 10]} ${words[(r >>> 8) % 10]} ${r.toString(36)} ${next().toString(16)}`;
    if (variant && i % 4 === 1) line += ` changed ${(r >>> 3) % 997}`;
    lines.push(line);
  }
  return Buffer.from(lines.join('\n') + '\n');
}

/** Writes both commits with git fast-import: branch `a`, then `b` editing every file. */
function fastImportStream(stdin) {
  const chunks = function* () {
    for (const [branch, variant] of [
      ['a', false],
      ['b', true],
    ]) {
      const msg = `bench ${branch}\n`;
      yield `commit refs/heads/${branch}\ncommitter bench <bench@localhost> 1700000000 +0000\ndata ${msg.length}\n${msg}`;
      if (variant) yield 'from refs/heads/a\n';
      for (let f = 0; f < FILES; f++) {
        const data = fileText(f, variant);
        yield `M 100644 inline src/f${String(f).padStart(4, '0')}.txt\ndata ${data.length}\n`;
        yield data;
        yield '\n';
      }
      yield '\n';
    }
  };
  const it = chunks();
  const pump = () => {
    for (let r = it.next(); !r.done; r = it.next())
      if (!stdin.write(r.value)) return stdin.once('drain', pump);
    stdin.end();
  };
  pump();
}

// The child: one diffDigest, then its own peak RSS (KB on Linux).
const CHILD = `
const { createGit } = await import(process.argv[1]);
const [repo, a, b] = process.argv.slice(2);
const git = createGit();
const t = process.hrtime.bigint();
const digest = await git.diffDigest(repo, a, b);
const ms = Number(process.hrtime.bigint() - t) / 1e6;
console.log(JSON.stringify({ digest, ms, maxRssKb: process.resourceUsage().maxRSS }));
`;

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export default async function () {
  const { canonicalDiffArgs } = await import(distGit);
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-diff-'));
  try {
    await run('git', ['init', '--quiet', '--bare', dir]);
    await run('git', ['-C', dir, 'fast-import', '--quiet'], { input: fastImportStream });
    const [a, b] = (await run('git', ['-C', dir, 'rev-parse', 'refs/heads/a', 'refs/heads/b'])).stdout
      .trim()
      .split('\n');
    const args = ['-C', dir, ...canonicalDiffArgs(a, b)];
    const diffBytes = Number((await run('sh', ['-c', 'git "$@" | wc -c', 'sh', ...args])).stdout.trim());
    const baseline = () => run('sh', ['-c', 'git "$@" | sha256sum', 'sh', ...args]);
    const ours = async () =>
      JSON.parse(
        (await run(process.execPath, ['--input-type=module', '-e', CHILD, distGit, dir, a, b])).stdout,
      );

    await baseline(); // warm the page cache
    await ours();
    const ratios = [];
    const oursMs = [];
    const baseMs = [];
    let peakKb = 0;
    let same = true;
    for (let i = 0; i < REPS; i++) {
      const first = i % 2 === 0;
      const r1 = first ? await ours() : null;
      const base = await baseline();
      const r = r1 ?? (await ours());
      same &&= base.stdout.split(' ')[0] === r.digest;
      ratios.push(r.ms / base.ms);
      oursMs.push(r.ms);
      baseMs.push(base.ms);
      peakKb = Math.max(peakKb, r.maxRssKb);
    }
    const ratio = median(ratios);
    const peakMb = peakKb / 1024;
    const diffMb = diffBytes / 1e6;
    return {
      name: 'diff digest (streamed sha256 of the canonical diff)',
      target: `time ≤ ${TARGET_RATIO}× git diff | sha256sum, peak RSS ≤ ${TARGET_RSS_MB} MB, diff ≥ ${MIN_DIFF_MB} MB`,
      pass: same && ratio <= TARGET_RATIO && peakMb <= TARGET_RSS_MB && diffMb >= MIN_DIFF_MB,
      lines: [
        `diff size: ${diffMb.toFixed(1)} MB (${FILES} files), ${REPS} repetitions, alternating order`,
        `ours: median ${median(oursMs).toFixed(0)} ms; git diff | sha256sum: median ${median(baseMs).toFixed(0)} ms`,
        `median ratio ours/baseline: ${ratio.toFixed(3)} (each: ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
        `peak RSS of the node process running diffDigest: ${peakMb.toFixed(1)} MB`,
        `digests identical to sha256sum: ${same}`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
