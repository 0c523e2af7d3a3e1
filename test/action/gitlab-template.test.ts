/**
 * templates/revloop.yml, the GitLab CI/CD component: a `spec:` header and a
 * job, as GitLab reads a component (two YAML documents). Every
 * `$[[ inputs.X ]]` names a declared input, the job runs the committed
 * bundle from a clone at the pinned ref in a stock Node image, never a
 * registry package, and verifies with the target branch's keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../loop/helpers.js';

const text = readFileSync(join(ROOT, 'templates/revloop.yml'), 'utf8');

interface Spec {
  spec: { inputs: Record<string, { default?: unknown; type?: string; description?: string }> };
}
type Job = { image: string; script: string[]; variables: Record<string, string> };

describe('templates/revloop.yml', () => {
  const docs = parseAllDocuments(text);
  const spec = (): Spec => docs[0]?.toJS() as Spec;
  const jobs = (): Record<string, Job> => docs[1]?.toJS() as Record<string, Job>;
  it('is a spec header and one job, both valid YAML', () => {
    expect(docs.map((d) => d.errors)).toEqual([[], []]);
    const spec = docs[0]?.toJS() as Spec;
    expect(Object.keys(spec.spec.inputs)).toContain('ref');
    expect(spec.spec.inputs.ref?.default).toBeUndefined(); // the tag is the caller's to pin
    const jobs = docs[1]?.toJS() as Record<string, Job>;
    expect(Object.keys(jobs)).toEqual(['revloop']);
  });

  it('uses only declared inputs, and every boolean input is typed', () => {
    const spec = docs[0]?.toJS() as Spec;
    const used = [...text.matchAll(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g)].map((m) => m[1]);
    for (const name of used) expect(spec.spec.inputs, name).toHaveProperty([name as string]);
    for (const [name, i] of Object.entries(spec.spec.inputs))
      if (typeof i.default === 'boolean') expect(i.type, name).toBe('boolean');
  });

  it('runs the bundle of a clone at the ref in a stock Node image, with the target branch’s keys', () => {
    const job = jobs().revloop as Job;
    const script = job.script.join('\n');
    expect(script).toContain(
      'git clone --quiet --depth 1 --branch "$REVLOOP_REF" "$REVLOOP_SRC" /tmp/revloop',
    );
    expect(script).toContain('node /tmp/revloop/action/dist/revloop.mjs verify revloop-record.json');
    expect(script).toContain('--keys-from "$target" --target "$target"');
    expect(script).toContain('--require-confined');
    expect(script).not.toMatch(/npx|revloop@/);
    expect(job.image).toBe('$[[ inputs.image ]]');
    expect(spec().spec.inputs.image?.default).toMatch(/^node:(22|24)$/);
  });
});
