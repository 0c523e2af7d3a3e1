/** The verify result as the job summary shows it (a Markdown table, reviewer text escaped). */

export interface VerifyResult {
  ok?: boolean;
  code?: string;
  reason?: string;
  runId?: string;
  head?: string;
  outcome?: string;
  keyId?: string;
}

const esc = (s: unknown): string => String(s ?? '—').replace(/[|<>&`*_\\[\]]/g, (c) => `\\${c}`);

export function verifySummary(r: VerifyResult): string {
  const head = r.ok ? '### ✅ revloop verify: ok' : `### ❌ revloop verify: refused (${esc(r.code)})`;
  return `${[
    head,
    '',
    '| | |',
    '|---|---|',
    `| reason | ${esc(r.reason)} |`,
    `| run | ${esc(r.runId)} |`,
    `| commit | ${esc(r.head)} |`,
    `| outcome | ${esc(r.outcome)} |`,
    `| key | ${esc(r.keyId?.slice(0, 16))} |`,
    '',
  ].join('\n')}\n`;
}

/** verify printed no result (it could not start, or crashed): never read as ok. */
export function readVerifyResult(text: string | null, exit: number): VerifyResult {
  try {
    const r = JSON.parse(text ?? '') as VerifyResult;
    if (r && typeof r === 'object') return r;
  } catch {}
  return {
    ok: false,
    code: 'error',
    reason: `revloop verify exited ${exit} without a result; see the step's log`,
  };
}
