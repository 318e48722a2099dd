/**
 * Reading one Compose file for the loader: text through FileAccess, YAML (yaml-source.ts),
 * interpolation of every value, the official schema. Shared by the main file, included files
 * and `extends.file` targets. Problems go to the loader's list with their paths.
 */
import path from 'node:path';
import { parseDotenv } from './dotenv.js';
import { needsFiles, type FileAccess } from './file-access.js';
import { interpolate, InterpolationError, type Lookup } from './interpolate.js';
import type { FileContext } from './load-context.js';
import type { MergeTags } from './merge.js';
import { unsetWarning } from './normalize-service.js';
import { isMap, joinPath, type Problems } from './problems.js';
import { validateComposeSchema } from './schema.js';
import { parseComposeYaml, YamlSourceError } from './yaml-source.js';

type Json = Record<string, unknown>;

/** The `!reset` / `!override` paths of each loaded document and model, for the merges. */
export const mergeTagsOf = new WeakMap<Json, MergeTags>();

/** Nesting allowed for `include` and `extends` chains; deeper is surely a mistake. */
export const MAX_CHAIN = 16;

/** One loadCompose call: where problems and warnings go, and what it has read so far. */
export interface Loader {
  readonly files: FileAccess | null;
  readonly problems: Problems;
  readonly warnings: string[];
  /** Main project directory, to name other files relative to it in messages. */
  readonly root: string;
  /** `extends.file` targets, parsed, interpolated and schema-checked once, by absolute path. */
  readonly rawCache: Map<string, Promise<Json | null>>;
}

export function labelOf(loader: Loader, abs: string): string {
  const rel = path.relative(loader.root, abs);
  return rel.startsWith('..') ? abs : rel;
}

/** Interpolate every value of a tree (keys untouched); problems carry the value's path. */
export function interpolateTree(value: unknown, ctx: FileContext, at: string): unknown {
  if (typeof value === 'string') {
    try {
      const r = interpolate(value, ctx.lookup);
      for (const m of r.missing) ctx.warnings.push(unsetWarning(m));
      return r.value;
    } catch (err) {
      if (!(err instanceof InterpolationError)) throw err;
      ctx.problems.add(`${ctx.prefix}${at}`, err.message);
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateTree(v, ctx, joinPath(at, i)));
  if (isMap(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolateTree(v, ctx, joinPath(at, k));
    return out;
  }
  return value;
}

/** One file as an interpolated document checked against the schema, or null when it cannot be read at all (problems added). */
export function readDocument(text: string, ctx: FileContext, fileName: string): Json | null {
  let value: unknown;
  let tags: MergeTags;
  try {
    const parsed = parseComposeYaml(text);
    value = parsed.value;
    tags = parsed;
    for (const w of parsed.warnings) ctx.warnings.push(`${fileName}: ${w}`);
  } catch (err) {
    if (!(err instanceof YamlSourceError)) throw err;
    ctx.problems.add(fileName, err.message);
    return null;
  }
  if (value === null || value === undefined) {
    ctx.problems.add(fileName, 'is empty: a Compose file needs at least "services"');
    return null;
  }
  if (!isMap(value)) {
    ctx.problems.add(fileName, 'expected a mapping with "services" at the top');
    return null;
  }
  const doc = interpolateTree(value, ctx, '') as Json;
  mergeTagsOf.set(doc, { resets: tags.resets, overrides: tags.overrides });
  for (const p of validateComposeSchema(doc)) ctx.problems.add(`${ctx.prefix}${p.path}`.replace(/: $/, ''), p.message);
  // Loading goes on after schema problems (normalisation checks every shape it reads), so one
  // run reports the later problems too: undefined volumes, bad port strings, missing env files.
  return doc;
}

export async function readFileText(loader: Loader, abs: string, what: string, at: string): Promise<string | null> {
  if (!loader.files) {
    loader.problems.add(at, needsFiles(what));
    return null;
  }
  if (!(await loader.files.exists(abs))) {
    loader.problems.add(at, `${abs} not found`);
    return null;
  }
  try {
    return await loader.files.readText(abs);
  } catch (err) {
    loader.problems.add(at, `cannot read ${abs}: ${(err as Error).message}`);
    return null;
  }
}

/** Variables of env files (`.env`, include's env_file) over which `outer` wins; in escaped form. */
export async function envFilesLookup(loader: Loader, files: readonly string[], outer: Lookup, at: string, required: boolean): Promise<Lookup> {
  const values = new Map<string, string>();
  if (!loader.files) return outer;
  for (const abs of files) {
    if (!(await loader.files.exists(abs))) {
      if (required) loader.problems.add(at, `env file ${abs} not found`);
      continue;
    }
    let text: string;
    try {
      text = await loader.files.readText(abs);
    } catch (err) {
      loader.problems.add(at || labelOf(loader, abs), `cannot read ${abs}: ${(err as Error).message}`);
      continue;
    }
    const parsed = parseDotenv(text, (n) => outer(n) ?? values.get(n));
    for (const e of parsed.errors) loader.problems.add(at || labelOf(loader, abs), `${abs}: ${e}`);
    for (const m of parsed.missing) loader.warnings.push(unsetWarning(m));
    for (const [k, v] of parsed.values) values.set(k, v);
  }
  return (name) => outer(name) ?? values.get(name);
}
