/**
 * The `verdicts` demo scenario: a change of thirty small currency modules,
 * reviewed twice, before and after a one-line push. It shows what keeps a
 * verdict honest and cheap: a flaky blocker seen by one of three samples
 * does not block, a refuted claim raised again after the push is answered
 * from memory, and every chunk the push left as it was keeps its verdict.
 */
import type { RunReport } from '../core/run-report.js';

/** One currency module: a few lines, so each file's diff is one chunk under `CHUNK_BYTES`. */
const CURRENCIES: [code: string, name: string, minorUnits: number][] = [
  ['AUD', 'Australian dollar', 2],
  ['BRL', 'Brazilian real', 2],
  ['CAD', 'Canadian dollar', 2],
  ['CHF', 'Swiss franc', 2],
  ['CLP', 'Chilean peso', 0],
  ['CNY', 'Chinese yuan', 2],
  ['CZK', 'Czech koruna', 2],
  ['DKK', 'Danish krone', 2],
  ['EUR', 'Euro', 2],
  ['GBP', 'Pound sterling', 2],
  ['HKD', 'Hong Kong dollar', 2],
  ['HUF', 'Hungarian forint', 2],
  ['IDR', 'Indonesian rupiah', 2],
  ['ILS', 'Israeli shekel', 2],
  ['INR', 'Indian rupee', 2],
  ['ISK', 'Icelandic krona', 0],
  ['JPY', 'Japanese yen', 0],
  ['KRW', 'South Korean won', 0],
  ['MXN', 'Mexican peso', 2],
  ['MYR', 'Malaysian ringgit', 2],
  ['NOK', 'Norwegian krone', 2],
  ['NZD', 'New Zealand dollar', 2],
  ['PHP', 'Philippine peso', 2],
  ['PLN', 'Polish zloty', 2],
  ['SEK', 'Swedish krona', 2],
  ['SGD', 'Singapore dollar', 2],
  ['THB', 'Thai baht', 2],
  ['TRY', 'Turkish lira', 2],
  ['USD', 'US dollar', 2],
  ['ZAR', 'South African rand', 2],
];

const pathOf = (code: string) => `src/currencies/${code.toLowerCase()}.js`;

const currency = (code: string, name: string, minorUnits: number, note = '') =>
  `// ${name} (${code}): amounts are integers in minor units.${note}
export const code = '${code}';
export const minorUnits = ${minorUnits};

export function format(minor) {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const scale = 10 ** minorUnits;
  const whole = Math.floor(abs / scale);
  if (minorUnits === 0) return \`\${sign}\${whole} \${code}\`;
  const frac = String(abs % scale).padStart(minorUnits, '0');
  return \`\${sign}\${whole}.\${frac} \${code}\`;
}
`;

/** Every file's diff is between half the limit and the limit: each one ends its own chunk (core/chunks.ts). */
export const CHUNK_BYTES = 1_000;
export const CURRENCY_FILES = CURRENCIES.length;

const CRITERIA = `# Review criteria

C1. Amounts are integers in minor units; formatting never loses or invents a unit.
C2. A negative amount keeps its sign when formatted.
`;

const CONFIG = `# revloop demo config (verdicts): two scripted reviewers that read nothing but their prompt, a refuter.
criteria: REVIEW.md
review: { chunkBytes: ${CHUNK_BYTES} }
reviewers:
  - { name: correctness, adapter: scripted, script: review/replies.json, reuse: prompt }
  - name: second-look
    adapter: scripted
    script: review/replies.json
    reuse: prompt
    samples: { n: 3, block: 2, on: blockers }
refuter: { adapter: scripted, script: review/replies.json }
budgets: { rounds: 3, wallSeconds: 300, costUsd: 1 }
retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 1000 }
`;

const lineOf = (text: string, needle: string): number => {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`demo fixture: "${needle}" not found`);
  return i + 1;
};
const TEMPLATE = currency('XXX', 'x', 2);
const pass = { reply: { verdict: 'pass', findings: [] as unknown[], usage: { costUsd: 0.0021 } } };
const findings = (...f: unknown[]) => ({
  reply: { verdict: 'findings', findings: f, usage: { costUsd: 0.0034 } },
});

const DIVIDES_CLAIM = 'format() divides by 10 ** minorUnits, and JPY has minorUnits 0: a division by zero';

function script() {
  return {
    correctness: {
      '*': [
        {
          when: pathOf('JPY'),
          ...findings({
            severity: 'MAJOR',
            file: pathOf('JPY'),
            line: lineOf(TEMPLATE, 'const scale'),
            endLine: lineOf(TEMPLATE, 'const whole'),
            claim: DIVIDES_CLAIM,
            failureScenario:
              'format(1234) computes 1234 / 0 = Infinity and returns "Infinity JPY" instead of "1234 JPY" (C1).',
            violatedClause: 'C1',
          }),
        },
        pass,
      ],
    },
    'second-look': {
      '*': [
        {
          // Only the first sample on the Swiss franc sees it; the other two pass.
          when: pathOf('CHF'),
          sample: 0,
          ...findings({
            severity: 'MODERATE',
            file: pathOf('CHF'),
            line: lineOf(TEMPLATE, 'const sign'),
            claim: 'format() drops the sign of a negative amount under one franc',
            failureScenario:
              'format(-5) returns "0.05 CHF" instead of "-0.05 CHF": a refund of five centimes reads as a charge (C2).',
          }),
        },
        pass,
      ],
    },
    refuter: {
      '*': [
        {
          when: `Claim: ${DIVIDES_CLAIM}`,
          reply: {
            decision: 'refuted',
            reason:
              '10 ** 0 is 1, not 0: scale is 1, whole is 1234, and the minorUnits === 0 branch returns "1234 JPY". No wrong outcome follows.',
            usage: { costUsd: 0.0012 },
          },
        },
      ],
    },
  };
}

/** The commit on main (config, criteria, script), the change, and the push reviewed again. */
export function verdictsPlan() {
  return {
    base: {
      '.gitignore': '.revloop/\n',
      'README.md': '# currencies\n\nMoney formatting used by the revloop demo.\n',
      'REVIEW.md': CRITERIA,
      'revloop.config.yaml': CONFIG,
      'review/replies.json': `${JSON.stringify(script(), null, 2)}\n`,
      'package.json': '{ "name": "currencies", "type": "module", "private": true }\n',
    },
    baseMessage: 'currencies: review setup',
    branch: 'feature/currencies',
    change: {
      files: Object.fromEntries(CURRENCIES.map(([c, n, m]) => [pathOf(c), currency(c, n, m)])),
      message: 'currencies: format thirty currencies',
    },
    pushes: [
      {
        // One line of one file, far from the two findings' lines.
        files: { [pathOf('SEK')]: currency('SEK', 'Swedish krona', 2, ' One krona is 100 ore.') },
        message: 'currencies: say what a krona is made of',
      },
    ],
  };
}

/** What the two runs were designed to show, read from their recorded reports. */
export function verdictsExpectations(runs: readonly RunReport[]): { what: string; ok: boolean }[] {
  const [first, second] = runs;
  if (!first || !second) return [{ what: 'both runs were recorded', ok: false }];
  const flaky = (r: RunReport) => r.findings.find((f) => f.reviewer === 'second-look');
  const wrong = (r: RunReport) => r.findings.find((f) => f.reviewer === 'correctness');
  const refuterCalls = (r: RunReport) => r.attempts.filter((a) => a.role === 'refuter').length;
  const correctness = (r: RunReport) =>
    r.verdicts.filter((v) => v.role === 'reviewer' && v.reviewer === 'correctness');
  // Chunks: the correctness reviewer's calls (one per chunk); changed: run 2's prompts run 1 never sent.
  const chunks = correctness(first).length;
  const sent = new Set(correctness(first).map((v) => v.promptDigest));
  const changed = correctness(second).filter((v) => !sent.has(v.promptDigest)).length;
  const reused = second.verdicts.filter((v) => v.reusedFrom);
  const f1 = flaky(first);
  const w2 = wrong(second);
  return [
    {
      what: 'both runs completed clear',
      ok: runs.every((r) => r.run.status === 'completed' && r.run.outcome === 'clear'),
    },
    {
      what: `the change was cut into ${CURRENCY_FILES} chunks, one per file (review.chunkBytes ${CHUNK_BYTES})`,
      ok: chunks === CURRENCY_FILES,
    },
    {
      what: 'the flaky MODERATE was seen in 1 of 3 samples and demoted to MINOR (it does not block)',
      ok:
        f1?.reproduction?.seen === 1 &&
        f1.reproduction.of === 3 &&
        f1.gate.kind === 'demoted' &&
        f1.gate.rule === 'unreproduced' &&
        f1.severity === 'MINOR',
    },
    {
      what: 'run 1: the refuter refuted the plausible but wrong MAJOR',
      ok: wrong(first)?.refutation?.decision === 'refuted' && refuterCalls(first) === 1,
    },
    {
      what: "run 2: the same claim was answered from run 1's refutation; the refuter was not called",
      ok:
        w2?.refutation?.decision === 'refuted' &&
        w2.refutation.origin?.runId === first.run.id &&
        w2.refutation.origin.round === 1 &&
        refuterCalls(second) === 0,
    },
    {
      what: "run 2: the push changed one chunk; every other chunk's correctness verdict was reused",
      ok: changed === 1 && correctness(second).filter((v) => v.reusedFrom).length === chunks - changed,
    },
    {
      what: 'run 2: each reused verdict is priced $0 and names run 1 at its head',
      ok:
        reused.length > 0 &&
        reused.every(
          (v) =>
            v.costUsd === 0 &&
            v.reusedFrom?.runId === first.run.id &&
            v.reusedFrom.revision === first.run.head,
        ),
    },
    {
      what: 'run 2: only the changed chunk was asked again (one call per reviewer)',
      ok: second.attempts.filter((a) => a.role === 'reviewer').length === changed * 2,
    },
  ];
}
