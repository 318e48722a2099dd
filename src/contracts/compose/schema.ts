/**
 * Validation against the official Compose JSON schema (compose-spec-schema.ts), so that every
 * valid Compose file gets past it and an invalid one is refused with every problem named by its
 * path (`services.web.ports.0: …`). Runs on each file after interpolation, as Compose does.
 *
 * ajv reports every failed branch of a `oneOf`; we keep the branch that got furthest into the
 * value (the one the author meant) and otherwise say which types were expected.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validate as compiledValidate } from './compose-schema-validator.js';

/**
 * ajv's validator for the vendored Compose schema (compose-spec-schema.ts), compiled when denv is
 * built rather than when a process loads its first Compose file (generate-schema-validator.mjs;
 * options in schema-validator-source.ts; schema.test.ts fails if it is stale).
 */
const validate = compiledValidate as unknown as ValidateFunction;

/** `/services/web/ports/0` → `services.web.ports.0` (JSON-pointer escapes undone). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

function depth(e: ErrorObject): number {
  return e.instancePath === '' ? 0 : e.instancePath.split('/').length;
}

function describe(e: ErrorObject): { path: string; message: string } {
  const path = pointerToPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { path: path ? `${path}.${String(p.additionalProperty)}` : String(p.additionalProperty), message: 'not allowed here by the Compose specification' };
    case 'required':
      return { path, message: `missing required field "${String(p.missingProperty)}"` };
    case 'type':
      return { path, message: `expected ${String(p.type).replaceAll(',', ' or ')}` };
    case 'enum':
      return { path, message: `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern':
      return { path, message: `does not match ${String(p.pattern)}` };
    case 'uniqueItems':
      return { path, message: `items ${String(p.j)} and ${String(p.i)} are the same; each must be unique` };
    default:
      return { path, message: e.message ?? e.keyword };
  }
}

function within(pointer: string, base: string): boolean {
  return pointer === base || pointer.startsWith(`${base}/`);
}

/**
 * Reduce ajv's errors to what a person should read. ajv (allErrors) reports the errors of every
 * branch of a failed `oneOf`/`anyOf` just before the combinator's own error, innermost first. Those
 * are replaced by the errors of the branch that got deepest into the value (the one the author
 * meant); when every branch fails at the value itself (a wrong type), by one "expected A or B".
 * A branch is told by its schema path: the index under the combinator, or for a `$ref` branch
 * the definition it points to.
 */
function simplify(errors: readonly ErrorObject[]): ErrorObject[] {
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword !== 'oneOf' && e.keyword !== 'anyOf') {
      out.push(e);
      continue;
    }
    const inside: ErrorObject[] = [];
    while (out.length > 0 && within(out[out.length - 1]!.instancePath, e.instancePath)) inside.unshift(out.pop()!);
    const base = `${e.schemaPath}/`;
    const branchOf = (x: ErrorObject): string => (x.schemaPath.startsWith(base) ? x.schemaPath.slice(base.length).split('/')[0]! : x.schemaPath.split('/').slice(0, 3).join('/'));
    const deepest = Math.max(-1, ...inside.map(depth));
    if (inside.length === 0) out.push(e);
    else if (deepest <= depth(e)) {
      const types = [...new Set(inside.filter((x) => x.keyword === 'type').flatMap((x) => String((x.params as { type: unknown }).type).split(',')))];
      out.push(types.length > 0 ? { ...e, keyword: 'type', params: { type: types.join(',') } } : inside[0]!);
    } else {
      const branch = branchOf(inside.find((x) => depth(x) === deepest)!);
      out.push(...inside.filter((x) => branchOf(x) === branch));
    }
  }
  return out;
}

export interface SchemaProblem {
  readonly path: string;
  readonly message: string;
}

/** Every way `doc` breaks the Compose schema; empty when it is valid. */
export function validateComposeSchema(doc: unknown): SchemaProblem[] {
  if (validate(doc)) return [];
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of simplify(validate.errors ?? [])) {
    const d = describe(e);
    const key = `${d.path}\u0000${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
