import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configJsonSchema } from '../../src/core/config.js';

const shipped = JSON.parse(
  readFileSync(new URL('../../schema/revloop.config.schema.json', import.meta.url), 'utf8'),
);

describe('the shipped JSON Schema of revloop.config.yaml', () => {
  it('is generated from the config schema (run npm run build to refresh it)', () => {
    const { $id: _id, title: _title, ...rest } = shipped;
    expect(rest).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });

  it('accepts the starter config and rejects an unknown key', () => {
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const { $schema: _s, ...schema } = shipped;
    const validate = ajv.compile(schema);
    const good = parse('criteria: REVIEW.md\nreviewers:\n  - { name: a, command: [node, r.mjs] }\n');
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, reviewrs: [] })).toBe(false);
  });
});
