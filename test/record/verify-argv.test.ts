import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseVerifyArgv } from '../../src/cli/commands/verify.js';

/** The verify spec as src/cli/main.ts registers it; the fast path must agree with it. */
function commanderParse(argv: string[]): { args: string[]; opts: Record<string, unknown> } | 'error' {
  let out: { args: string[]; opts: Record<string, unknown> } | 'error' = 'error';
  const program = new Command('revloop')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  program
    .command('verify')
    .argument('<record>')
    .option('--key <pub...>')
    .option('--keys-from <ref>')
    .option('--target <ref>')
    .option('--repo <dir>', 'checkout directory', '.')
    .option('--allow-findings')
    .option('--json')
    .action((_r, _o, cmd: Command) => {
      out = { args: cmd.args, opts: cmd.opts() };
    });
  try {
    program.parse(['node', 'revloop', 'verify', ...argv]);
  } catch {
    return 'error';
  }
  return out;
}

describe('parseVerifyArgv (the fast path of main.ts)', () => {
  const agree = [
    ['rec.json'],
    ['rec.json', '--json'],
    ['--json', 'rec.json', '--allow-findings'],
    ['rec.json', '--key', 'a.pub'],
    ['rec.json', '--key', 'a.pub', '--key', 'b.pub', '--repo', 'x'],
    ['rec.json', '--key', 'a.pub', 'b.pub'],
    ['rec.json', '--key=a.pub', '--repo=dir', '--keys-from=origin/main'],
    ['rec.json', '--keys-from', 'main', '--json'],
    ['rec.json', '--target', 'refs/remotes/origin/main', '--keys-from=main'],
  ];
  it('parses plain invocations exactly as commander does', () => {
    for (const argv of agree) {
      const fast = parseVerifyArgv(argv);
      const slow = commanderParse(argv);
      expect(slow).not.toBe('error');
      if (slow === 'error' || !fast) throw new Error(`disagree on ${argv.join(' ')}`);
      // commander fills the --repo default; the command applies the same default.
      expect([argv, fast.args, { repo: '.', ...fast.opts }]).toEqual([argv, slow.args, slow.opts]);
    }
  });

  it('hands everything else to commander', () => {
    for (const argv of [
      [],
      ['--help'],
      ['rec.json', '--nope'],
      ['a', 'b'],
      ['rec.json', '--repo'],
      ['rec.json', '--json=1'],
      ['rec.json', '--key'],
    ])
      expect([argv, parseVerifyArgv(argv)]).toEqual([argv, null]);
  });
});
