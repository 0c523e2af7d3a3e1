/**
 * The fast path of the config reader (src/config/fast-keys.ts) against the
 * yaml package, on generated texts: wherever the fast path answers, the
 * yaml package parses the text without error and finds the same `keys:`.
 * The texts are config-shaped trees written in varied styles (indentation,
 * compact mappings, flow collections, quotes, comments) with stray lines
 * and awkward characters mixed in, so both sides of the subset's edge are
 * reached. The seed is fixed: the same cases every run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fastConfigKeys } from '../../src/config/fast-keys.js';

/** What `verify` would trust by the yaml package's reading, or a refusal when it does not parse. */
const yamlAnswer = (text: string): string[] | 'the yaml package refuses the text' => {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return 'the yaml package refuses the text';
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
};

type Node =
  | { t: 'inline'; text: string }
  | { t: 'empty' }
  | { t: 'seq'; step: number; items: Node[] }
  | { t: 'map'; step: number; compact: boolean; entries: { key: string; value: Node; comment: string }[] };

const AWKWARD = [...'ab./-:_ #\'"[]{},&*!|>%@`?~01\\', '\t', '\r', 'é'];
const junk = fc.string({ unit: fc.constantFrom(...AWKWARD), maxLength: 8 });
const plain = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('a.pub', 'keys/team.pub', 'b c.pub', '.revloop/k.pub', 'x-y_z') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'sqlite:.revloop/ledger.db',
      'postgres://u@h:5432/db',
      '5',
      '0.5',
      '-1',
      '0x1F',
      '0o17',
      '+1',
      '1e3',
      '.5',
      '.NaN',
      '-.inf',
      '1.pub',
      '1_000',
      '~x',
      'true',
      'False',
      'null',
      '~',
      '.inf',
      "it's",
      'x#y',
      'a: b',
      'x:',
      'a,b',
      '&a',
      '*a',
      '!t x',
      '|',
      '>',
      '%x',
      '@x',
      '`x`',
      '? x',
      '- x',
    ),
  },
  { weight: 1, arbitrary: junk },
);
const scalar = fc.oneof(
  { weight: 8, arbitrary: plain },
  { weight: 1, arbitrary: plain.map((s) => `'${s}'`) },
  { weight: 1, arbitrary: plain.map((s) => `"${s}"`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("'it''s'", "'a'b'", '"a\\"b"', '"\\t"', '""', "''", '"a" x', "'a'#c"),
  },
);
const sep = fc.oneof(
  { weight: 6, arbitrary: fc.constant(', ') },
  { weight: 1, arbitrary: fc.constantFrom(',', ' , ', ' ,', ',,', ', ,') },
);
const flowKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('name', 'keys', 'a', 'x') },
  { weight: 1, arbitrary: fc.constantFrom('null', 'a b', '"q"') },
);
const { flow } = fc.letrec<{ flow: string }>((tie) => ({
  flow: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(fc.array(fc.oneof(scalar, tie('flow')), { maxLength: 3 }), sep, fc.constantFrom('', ' ', ','))
      .map(([xs, s, pad]) => `[${pad === ',' ? '' : pad}${xs.join(s)}${pad}]`),
    fc
      .tuple(
        fc.array(
          fc.tuple(
            flowKey,
            fc.oneof(
              { weight: 6, arbitrary: fc.constant(': ') },
              { weight: 1, arbitrary: fc.constantFrom(':', ' : ', ':  ') },
            ),
            fc.oneof(scalar, tie('flow')),
          ),
          {
            maxLength: 3,
          },
        ),
        sep,
        fc.constantFrom('', ' '),
      )
      .map(([es, s, pad]) => `{${pad}${es.map(([k, c, v]) => `${k}${c}${v}`).join(s)}${pad}}`),
  ),
}));

const key = fc.oneof(
  { weight: 4, arbitrary: fc.constant('keys') },
  {
    weight: 8,
    arbitrary: fc.constantFrom('criteria', 'store', 'reviewers', 'pool', 'name', 'command', 'a', 'b-c', '_d'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('null', 'True', 'Keys', 'keys ', '"keys"', "'keys'", '1', '? keys', 'a b'),
  },
);
const comment = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.constantFrom(' # the team', '   # x: y', ' #') },
  { weight: 1, arbitrary: fc.constant('#tight') },
);
const step = fc.oneof(
  { weight: 8, arbitrary: fc.constant(2) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 3, 4) },
);

const { map } = fc.letrec<{ node: Node; map: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(scalar, flow).map((text): Node => ({ t: 'inline', text })),
    fc.constant<Node>({ t: 'empty' }),
    fc.tuple(step, fc.array(tie('node'), { minLength: 1, maxLength: 4 })).map(
      ([s, items]): Node => ({
        t: 'seq',
        step: s,
        items,
      }),
    ),
    tie('map'),
  ),
  map: fc
    .tuple(
      step,
      fc.boolean(),
      fc.array(fc.record({ key, value: tie('node'), comment }), { minLength: 1, maxLength: 4 }),
    )
    .map(([s, compact, entries]): Node => ({ t: 'map', step: s, compact, entries })),
}));

const sp = (n: number): string => ' '.repeat(n);

/** Writes `lead` (`key:` or `-`) and the value after it, then any block below. */
function writeValue(lead: string, indent: number, v: Node, comment: string, out: string[]): void {
  if (v.t === 'inline') out.push(`${sp(indent)}${lead} ${v.text}${comment}`);
  else {
    out.push(`${sp(indent)}${lead}${comment}`);
    if (v.t !== 'empty') writeBlock(v, indent + v.step, out);
  }
}

function writeBlock(v: Node, indent: number, out: string[]): void {
  if (v.t === 'map') for (const e of v.entries) writeValue(`${e.key}:`, indent, e.value, e.comment, out);
  else if (v.t === 'seq')
    for (const item of v.items) {
      if (item.t === 'map' && item.compact && item.entries[0]) {
        const [first, ...rest] = item.entries;
        writeValue(`- ${first.key}:`, indent, first.value, first.comment, out);
        for (const e of rest) writeValue(`${e.key}:`, indent + 2, e.value, e.comment, out);
      } else writeValue('-', indent, item, '', out);
    }
}

const strayLine = fc.oneof(
  fc.constantFrom(
    '',
    '   ',
    '# a comment',
    '  # indented comment',
    '---',
    '...',
    '%YAML 1.2',
    'keys: [x.pub]',
    '- a',
  ),
  fc.tuple(fc.nat(4), junk).map(([n, s]) => `${sp(n)}${s}`),
);

/** A `keys:` entry as people write it: a list of paths, as a block or a flow, now and then with an odd item. */
const keysEntry = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 8, arbitrary: plain.filter((p) => /^[a-z.]/.test(p)) },
        { weight: 1, arbitrary: scalar },
      ),
      {
        maxLength: 4,
      },
    ),
    fc.constantFrom('block', 'block', 'flow', 'same'),
    comment,
  )
  .map(([items, style, c]) => ({
    key: 'keys',
    comment: c,
    value:
      style === 'flow'
        ? ({ t: 'inline', text: `[${items.join(', ')}]` } as Node)
        : items.length === 0
          ? ({ t: 'empty' } as Node)
          : ({
              t: 'seq',
              step: style === 'same' ? 0 : 2,
              items: items.map((text): Node => ({ t: 'inline', text })),
            } as Node),
  }));

/** A root mapping, with a `keys:` entry at some place in most of them. */
const root = fc.tuple(map, fc.option(fc.tuple(fc.nat(), keysEntry), { freq: 4 })).map(([m, k]): Node => {
  if (m.t !== 'map' || !k) return m;
  const entries = m.entries.filter((e) => e.key !== 'keys');
  entries.splice(k[0] % (entries.length + 1), 0, k[1]);
  return { ...m, entries };
});

/** A config-shaped text: a written tree, sometimes with stray lines, CRLF line ends or no final newline. */
const configText = fc
  .tuple(
    root,
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(), strayLine), { maxLength: 2 }) },
    ),
    fc.constantFrom('\n', '\n', '\n', '\n', '\n', '\r\n'),
    fc.boolean(),
  )
  .map(([tree, strays, eol, finalNewline]) => {
    const lines: string[] = [];
    writeBlock(tree, 0, lines);
    for (const [at, line] of strays) lines.splice(at % (lines.length + 1), 0, line);
    return lines.join(eol) + (finalNewline ? eol : '');
  });

const CASES = 3000;
const SEED = 20261207;

describe('the fast path of the config reader', () => {
  it('answers as the yaml package does wherever it answers', () => {
    fc.assert(
      fc.property(configText, (text) => {
        const fast = fastConfigKeys(text);
        if (fast !== undefined) expect([text, fast]).toEqual([text, yamlAnswer(text)]);
      }),
      { numRuns: CASES, seed: SEED },
    );
  });

  it('answers for many of the generated texts, and leaves many to the yaml package', () => {
    const texts = fc.sample(configText, { numRuns: CASES, seed: SEED });
    const answered = texts.filter((t) => fastConfigKeys(t) !== undefined);
    const withKeys = answered.filter((t) => (fastConfigKeys(t) ?? []).length > 0);
    // Floors well below what the fixed seed gives, so the property above is not passed vacuously.
    expect(answered.length).toBeGreaterThan(CASES / 10);
    expect(withKeys.length).toBeGreaterThan(CASES / 50);
    expect(texts.length - answered.length).toBeGreaterThan(CASES / 10);
  });
});
