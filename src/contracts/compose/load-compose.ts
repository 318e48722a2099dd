/**
 * Loading a Compose file the way `docker compose config` does, into the canonical model denv's
 * spec is read from (DESIGN "Contract details" → Compose loading; docs/compose.md).
 *
 * For each file: parse YAML (yaml-source.ts: caps, anchors, merge keys) → interpolate every value
 * (interpolate.ts; `DENV_` names kept for the host) → validate against the official Compose
 * schema (schema.ts) → bring in `include`d projects → resolve `extends` and normalise each
 * service (normalize-service.ts, merge.ts). Then, on the whole model: `profiles`, and the
 * cross-references (references.ts). Every problem found on the way is collected; if there is any,
 * `INVALID_COMPOSE` is thrown listing them all, one per line, each with its path.
 *
 * The model is in escaped form (a literal `$` written `$$`), so loading it again gives it back
 * unchanged: the CLI loads with files and sends the model, the server loads it again with none.
 *
 * No direct I/O: files are reached through FileAccess only, and `files: null` refuses what needs
 * them (`include`, `extends.file`, `env_file`; `.env` is then not read).
 */
import path from 'node:path';
import { envFilesLookup, mergeTagsOf, readDocument, readFileText, type Loader } from './document.js';
import { resolveService } from './extends.js';
import type { FileAccess } from './file-access.js';
import { includeEntries, loadInclude } from './include.js';
import { escapedLookup, unescapeDollars, type Lookup } from './interpolate.js';
import type { FileContext } from './load-context.js';
import { applyProfiles } from './profiles.js';
import { isMap, joinPath, Problems } from './problems.js';
import { checkReferences } from './references.js';
import { resolveHostPath } from './volumes.js';

type Json = Record<string, unknown>;

export interface LoadComposeOptions {
  /** The Compose text; read from `file` when absent. */
  readonly text?: string;
  /** Absolute path of the Compose file (names it in messages; needed to read it when `text` is absent). */
  readonly file?: string;
  /** Absolute directory relative paths resolve against, and where `.env` is read. */
  readonly projectDir: string;
  /** The variables to interpolate with (the CLI passes process.env); they win over `.env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Active profiles (`--profile`); when none, `COMPOSE_PROFILES` from env/.env. Services without profiles are always in. */
  readonly profiles?: readonly string[];
  /** File access; null or absent on the server. */
  readonly files?: FileAccess | null;
}

export interface LoadedCompose {
  /** The canonical Compose model (escaped form). */
  readonly model: Record<string, unknown>;
  /** What Compose would warn about (unset variables, dropped attributes …), each once. */
  readonly warnings: readonly string[];
}
const TOP_LEVEL_ORDER = ['name', 'services', 'networks', 'volumes', 'secrets', 'configs', 'models'] as const;

/** Top-level secrets and configs with `file` made absolute (relative to the declaring file). */
function normalizeFileResources(value: unknown, ctx: FileContext, at: string): unknown {
  if (!isMap(value)) return value;
  const out: Json = {};
  for (const [name, def] of Object.entries(value)) {
    if (isMap(def) && typeof def.file === 'string') {
      const abs = resolveHostPath(def.file, ctx);
      if (abs === null) ctx.problems.add(joinPath(at, `${name}.file`), 'cannot expand ~: HOME is not set');
      out[name] = { ...def, file: abs ?? def.file };
    } else out[name] = def;
  }
  return out;
}

function nullToEmpty(value: unknown): unknown {
  if (!isMap(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = v === null ? {} : v;
  return out;
}

/** One file (and what it includes) as a canonical model without profiles applied; null if unreadable. */
async function loadProject(loader: Loader, text: string, ctx: FileContext, fileName: string, stack: readonly string[]): Promise<Json | null> {
  const doc = readDocument(text, ctx, fileName);
  if (!doc) return null;
  const model: Json = {};
  const tags = mergeTagsOf.get(doc);
  if (tags) mergeTagsOf.set(model, tags);
  if (doc.version !== undefined) ctx.warnings.push(`${fileName}: the attribute "version" is obsolete and ignored`);
  if (doc.name !== undefined) model.name = doc.name;
  const services: Json = {};
  for (const name of Object.keys(isMap(doc.services) ? doc.services : {})) {
    const s = await resolveService(loader, name, doc, ctx, []);
    if (s) services[name] = s;
  }
  model.services = services;
  if (doc.networks !== undefined) model.networks = nullToEmpty(doc.networks);
  if (doc.volumes !== undefined) model.volumes = nullToEmpty(doc.volumes);
  if (doc.secrets !== undefined) model.secrets = normalizeFileResources(doc.secrets, ctx, `${ctx.prefix}secrets`);
  if (doc.configs !== undefined) model.configs = normalizeFileResources(doc.configs, ctx, `${ctx.prefix}configs`);
  if (doc.models !== undefined) model.models = doc.models;
  for (const [k, v] of Object.entries(doc)) if (k.startsWith('x-')) model[k] = v;

  const entries = includeEntries(doc.include);
  for (let i = 0; i < entries.length; i++) {
    const included = await loadInclude(loader, entries[i]!, ctx, `${ctx.prefix}include.${i}`, stack, loadProject);
    if (!included) continue;
    for (const section of ['services', 'networks', 'volumes', 'secrets', 'configs'] as const) {
      const theirs = included[section];
      if (!isMap(theirs)) continue;
      const ours: Json = isMap(model[section]) ? { ...(model[section] as Json) } : {};
      for (const [name, def] of Object.entries(theirs)) {
        if (name in ours) {
          if (JSON.stringify(ours[name]) !== JSON.stringify(def)) ctx.warnings.push(`${section}.${name} from include ${entries[i]!.paths.join(', ')} conflicts with the one defined here; the one here is kept`);
          continue;
        }
        ours[name] = def;
      }
      model[section] = ours;
    }
  }
  return model;
}

/** `--profile` values, or else `COMPOSE_PROFILES` (comma-separated) from the environment or `.env`, as Compose reads it. */
function activeProfiles(given: readonly string[] | undefined, lookup: Lookup): readonly string[] {
  if (given && given.length > 0) return given;
  const fromEnv = lookup('COMPOSE_PROFILES');
  return fromEnv ? unescapeDollars(fromEnv).split(',').map((p) => p.trim()).filter((p) => p !== '') : [];
}

function ordered(model: Json): Json {
  const out: Json = {};
  for (const k of TOP_LEVEL_ORDER) if (model[k] !== undefined) out[k] = model[k];
  for (const [k, v] of Object.entries(model)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * Load a Compose file into the canonical model. Throws DenvError INVALID_COMPOSE listing every
 * problem, one per line, each with its path. Never reads a file except through `opts.files`.
 */
export async function loadCompose(opts: LoadComposeOptions): Promise<LoadedCompose> {
  if (!path.isAbsolute(opts.projectDir)) throw new Error(`loadCompose: projectDir must be absolute, got ${opts.projectDir}`);
  const files = opts.files ?? null;
  const loader: Loader = { files, problems: new Problems(), warnings: [], root: opts.projectDir, rawCache: new Map() };
  const mainFile = opts.file ? path.resolve(opts.projectDir, opts.file) : null;
  let text = opts.text;
  if (text === undefined) {
    if (!mainFile) throw new Error('loadCompose: give text or file');
    text = (await readFileText(loader, mainFile, 'reading the Compose file', '')) ?? undefined;
    loader.problems.throwIfAny();
  }
  const processLookup = escapedLookup(opts.env);
  const lookup = files ? await envFilesLookup(loader, [path.join(opts.projectDir, '.env')], processLookup, '.env', false) : processLookup;
  const ctx: FileContext = {
    dir: opts.projectDir,
    home: opts.env.HOME,
    prefix: '',
    lookup,
    files,
    problems: loader.problems,
    warnings: loader.warnings,
  };
  const model = await loadProject(loader, text ?? '', ctx, mainFile ? path.basename(mainFile) : 'compose file', mainFile ? [mainFile] : []);
  if (model) {
    model.services = applyProfiles(isMap(model.services) ? model.services : {}, activeProfiles(opts.profiles, lookup), loader.problems, loader.warnings);
    checkReferences(model, loader.problems);
  }
  loader.problems.throwIfAny();
  return { model: ordered(model ?? {}), warnings: [...new Set(loader.warnings)] };
}
