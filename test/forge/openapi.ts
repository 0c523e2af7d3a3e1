/**
 * Validates HTTP requests against GitHub's published OpenAPI description
 * (@octokit/openapi, api.github.com): the operation must exist for the
 * method and path, path and query parameters must be declared and well
 * typed, and the JSON body must match the operation's request schema, with
 * no top-level property the schema does not name (GitHub ignores unknown
 * fields silently, which would hide a typo here).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters?: (Param | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Param> } & Record<string, unknown>;
}

interface Route {
  template: string;
  method: string;
  re: RegExp;
  names: string[];
  op: Operation;
  params: Param[];
  body: ValidateFunction | null;
  bodyProps: Set<string> | null;
  literal: number;
}

export interface OpenApiValidator {
  /** The operation id, or throws naming what does not conform. */
  check(method: string, url: URL, body: string): string;
}

let cached: OpenApiValidator | null = null;

export function githubOpenApi(): OpenApiValidator {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const spec = JSON.parse(
    readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
  ) as Spec;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'gh', components: spec.components });
  const deref = (p: Param | { $ref: string }): Param =>
    '$ref' in p ? (spec.components.parameters[p.$ref.split('/').pop() as string] as Param) : p;
  const routes: Route[] = [];
  const compiled = new Map<string, { fn: ValidateFunction; props: Set<string> | null }>();
  for (const [template, methods] of Object.entries(spec.paths))
    for (const [method, op] of Object.entries(methods)) {
      if (!op || typeof op !== 'object' || !('operationId' in op)) continue;
      const names: string[] = [];
      const re = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, n: string) => {
          names.push(n);
          return '([^/]+)';
        })}$`,
      );
      routes.push({
        template,
        method: method.toUpperCase(),
        re,
        names,
        op,
        params: (op.parameters ?? []).map(deref),
        body: null,
        bodyProps: null,
        literal: template.replace(/\{[^}]+\}/g, '').length,
      });
    }
  const bodyOf = (r: Route) => {
    const schema = r.op.requestBody?.content['application/json']?.schema;
    if (!schema) return null;
    let c = compiled.get(r.op.operationId);
    if (!c) {
      const text = JSON.stringify(schema).replace(/"#\/components\//g, '"gh#/components/');
      const s = JSON.parse(text) as Record<string, unknown>;
      const props = s.properties ? new Set(Object.keys(s.properties as object)) : null;
      c = { fn: ajv.compile(s), props };
      compiled.set(r.op.operationId, c);
    }
    return c;
  };
  const typed = (v: string, schema: Record<string, unknown> | undefined): boolean => {
    if (!schema) return true;
    if (schema.type === 'integer') return /^-?\d+$/.test(v);
    if (schema.type === 'boolean') return v === 'true' || v === 'false';
    if (Array.isArray(schema.enum)) return schema.enum.includes(v);
    return true;
  };
  cached = {
    check(method, url, body) {
      const path = url.pathname;
      const candidates = routes
        .filter((r) => r.method === method && r.re.test(path))
        .sort((a, b) => b.literal - a.literal);
      const r = candidates[0];
      if (!r) throw new Error(`${method} ${path}: no such operation in GitHub's OpenAPI description`);
      const where = `${method} ${r.template} (${r.op.operationId})`;
      const m = r.re.exec(path) as RegExpExecArray;
      r.names.forEach((n, i) => {
        const p = r.params.find((x) => x.in === 'path' && x.name === n);
        const v = decodeURIComponent(m[i + 1] as string);
        if (!typed(v, p?.schema))
          throw new Error(`${where}: path parameter ${n}=${v} does not match its schema`);
      });
      for (const [k, v] of url.searchParams) {
        const p = r.params.find((x) => x.in === 'query' && x.name === k);
        if (!p) throw new Error(`${where}: query parameter "${k}" is not in the description`);
        if (!typed(v, p.schema))
          throw new Error(`${where}: query parameter ${k}=${v} does not match its schema`);
      }
      const c = bodyOf(r);
      if (!c) {
        if (body.trim() && method !== 'GET')
          throw new Error(`${where}: sends a body the operation does not take`);
        return r.op.operationId;
      }
      if (!body.trim()) {
        if (r.op.requestBody?.required) throw new Error(`${where}: the request body is required`);
        return r.op.operationId;
      }
      const value = JSON.parse(body) as Record<string, unknown>;
      if (!c.fn(value))
        throw new Error(`${where}: body does not match the schema: ${ajv.errorsText(c.fn.errors)}`);
      if (c.props)
        for (const k of Object.keys(value))
          if (!c.props.has(k)) throw new Error(`${where}: body property "${k}" is not in the schema`);
      return r.op.operationId;
    },
  };
  return cached;
}
