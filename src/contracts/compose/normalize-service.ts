/**
 * One service definition, interpolated and valid per the Compose schema, in the canonical form
 * `docker compose config` prints (see docs/compose.md):
 *
 *   environment (with env_file merged in, environment winning) · labels · annotations · build.args
 *     → maps of strings (a name listed without a value takes it from the environment; a `DENV_`
 *     name is left unset, null, for the host)
 *   depends_on → `{service: {condition, required, restart}}`
 *   ports → long form (ports.ts) · expose → strings · volumes → long form (volumes.ts)
 *   secrets, configs → `{source, target?, uid?, gid?, mode?}`
 *   networks → `{name: config or null}`
 *   build → `{context (absolute unless a URL), dockerfile, …}`
 *   command, entrypoint, healthcheck and everything else → as written
 *
 * Pure but for reading env files through FileAccess. Every problem is added to ctx.problems with
 * its path; the service is still returned so later checks can run.
 */
import { parseDotenv } from './dotenv.js';
import { needsFiles } from './file-access.js';
import { unescapeDollars } from './interpolate.js';
import type { FileContext } from './load-context.js';
import { normalizePorts } from './ports.js';
import { isMap, joinPath } from './problems.js';
import { normalizeVolumes, resolveHostPath } from './volumes.js';

type Json = Record<string, unknown>;

/** Values Compose reads as booleans or integers although interpolation yields strings. */
const BOOLEAN_FIELDS = ['init', 'oom_kill_disable', 'privileged', 'read_only', 'stdin_open', 'tty'] as const;
const INTEGER_FIELDS = ['scale', 'pids_limit', 'oom_score_adj', 'mem_swappiness'] as const;

function castBoolean(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (/^(true|yes|on)$/i.test(v)) return true;
  if (/^(false|no|off)$/i.test(v)) return false;
  return v;
}

function castInteger(v: unknown): unknown {
  return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
}

/** Strings that interpolation produced where Compose expects a boolean or an integer, converted. */
export function castServiceTypes(service: Json): Json {
  const out: Json = { ...service };
  for (const k of BOOLEAN_FIELDS) if (k in out) out[k] = castBoolean(out[k]);
  for (const k of INTEGER_FIELDS) if (k in out) out[k] = castInteger(out[k]);
  if (isMap(out.healthcheck)) {
    out.healthcheck = { ...out.healthcheck, ...('retries' in out.healthcheck ? { retries: castInteger(out.healthcheck.retries) } : {}), ...('disable' in out.healthcheck ? { disable: castBoolean(out.healthcheck.disable) } : {}) };
  }
  if (isMap(out.deploy) && 'replicas' in out.deploy) out.deploy = { ...out.deploy, replicas: castInteger(out.deploy.replicas) };
  if (Array.isArray(out.volumes)) out.volumes = out.volumes.map((v) => (isMap(v) && 'read_only' in v ? { ...v, read_only: castBoolean(v.read_only) } : v));
  if (Array.isArray(out.ports)) out.ports = out.ports.map((p) => (isMap(p) && 'target' in p ? { ...p, target: castInteger(p.target) } : p));
  if (isMap(out.depends_on)) {
    const deps: Json = {};
    for (const [k, d] of Object.entries(out.depends_on)) deps[k] = isMap(d) ? { ...d, ...('required' in d ? { required: castBoolean(d.required) } : {}), ...('restart' in d ? { restart: castBoolean(d.restart) } : {}) } : d;
    out.depends_on = deps;
  }
  return out;
}

/**
 * A list (`["K=V", "K"]`) or mapping as a mapping of strings. A name with no value:
 *   - `fromEnv` (environment, build args): takes its value from the environment, or stays null
 *     (unset) when there is none; a `DENV_` name always stays null, for the host;
 *   - otherwise (labels, annotations): the empty string, as Compose reads `- "com.example.flag"`.
 * Keys from the list form are unescaped: keys are never interpolated, so they are literal in the output.
 */
export function toStringMap(value: unknown, ctx: FileContext | null, fromEnv: boolean): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const fill = (key: string, v: unknown): void => {
    if (v === null || v === undefined) {
      if (!fromEnv) out[key] = '';
      else out[key] = (ctx && !key.startsWith('DENV_') ? ctx.lookup(key) : undefined) ?? null;
    } else out[key] = typeof v === 'string' ? v : String(v);
  };
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = String(item);
      const eq = text.indexOf('=');
      if (eq < 0) fill(unescapeDollars(text), null);
      else fill(unescapeDollars(text.slice(0, eq)), text.slice(eq + 1));
    }
  } else if (isMap(value)) {
    for (const [k, v] of Object.entries(value)) fill(k, v);
  }
  return out;
}

function isRemoteContext(context: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(context) || context.startsWith('git@') || /^github\.com\//.test(context);
}

function normalizeBuild(build: unknown, ctx: FileContext, at: string): Json | unknown {
  const spec: Json = typeof build === 'string' ? { context: build } : isMap(build) ? { ...build } : {};
  if (!isMap(build) && typeof build !== 'string') return build;
  const context = typeof spec.context === 'string' && spec.context !== '' ? spec.context : '.';
  if (isRemoteContext(context)) spec.context = context;
  else {
    const abs = resolveHostPath(context, ctx);
    if (abs === null) ctx.problems.add(joinPath(at, 'context'), 'cannot expand ~: HOME is not set');
    spec.context = abs ?? context;
  }
  if (spec.dockerfile === undefined && spec.dockerfile_inline === undefined) spec.dockerfile = 'Dockerfile';
  if (spec.args !== undefined) spec.args = toStringMap(spec.args, ctx, true);
  if (spec.labels !== undefined) spec.labels = toStringMap(spec.labels, ctx, false);
  // Order the keys as `docker compose config` does: context and dockerfile first.
  const { context: c, dockerfile: d, ...rest } = spec;
  return { context: c, ...(d !== undefined ? { dockerfile: d } : {}), ...rest };
}

function normalizeDependsOn(value: unknown): Json {
  const out: Json = {};
  if (Array.isArray(value)) {
    for (const name of value) out[String(name)] = { condition: 'service_started', required: true, restart: false };
  } else if (isMap(value)) {
    for (const [name, d] of Object.entries(value)) {
      const dep = isMap(d) ? d : {};
      const { condition, required, restart, ...extra } = dep;
      out[name] = {
        condition: typeof condition === 'string' ? condition : 'service_started',
        required: typeof required === 'boolean' ? required : true,
        restart: restart === true || restart === 'true',
        ...extra,
      };
    }
  }
  return out;
}

function normalizeFileRefs(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry) => (typeof entry === 'string' ? { source: entry } : entry));
}

function normalizeNetworks(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const out: Json = {};
  for (const n of value) out[String(n)] = null;
  return out;
}

interface EnvFileRef {
  readonly path: string;
  readonly required: boolean;
  readonly format: 'compose' | 'raw';
}

function envFileRefs(value: unknown): EnvFileRef[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((e): EnvFileRef[] => {
    if (typeof e === 'string') return [{ path: e, required: true, format: 'compose' }];
    if (isMap(e) && typeof e.path === 'string') return [{ path: e.path, required: e.required !== false && e.required !== 'false', format: e.format === 'raw' ? 'raw' : 'compose' }];
    return [];
  });
}

/** The variables of a service's env_file entries, later files winning; problems for unreadable ones. */
async function readEnvFiles(value: unknown, ctx: FileContext, at: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!ctx.files) {
    ctx.problems.add(at, needsFiles('env_file'));
    return out;
  }
  for (const ref of envFileRefs(value)) {
    const abs = resolveHostPath(unescapeDollars(ref.path), ctx);
    if (abs === null) {
      ctx.problems.add(at, `cannot expand ~ in ${JSON.stringify(ref.path)}: HOME is not set`);
      continue;
    }
    if (!(await ctx.files.exists(abs))) {
      if (ref.required) ctx.problems.add(at, `env file ${abs} not found (mark it \`required: false\` if it is optional)`);
      continue;
    }
    let text: string;
    try {
      text = await ctx.files.readText(abs);
    } catch (err) {
      ctx.problems.add(at, `cannot read env file ${abs}: ${(err as Error).message}`);
      continue;
    }
    const parsed = parseDotenv(text, ctx.lookup, ref.format);
    for (const e of parsed.errors) ctx.problems.add(at, `${abs}: ${e}`);
    for (const m of parsed.missing) ctx.warnings.push(unsetWarning(m));
    for (const [k, v] of parsed.values) out[k] = v;
  }
  return out;
}

export function unsetWarning(name: string): string {
  return `The "${name}" variable is not set. Defaulting to a blank string.`;
}

/** One service in canonical form. `at` is the path of the service (`services.web`, with a file prefix). */
export async function normalizeService(raw: Json, ctx: FileContext, at: string): Promise<Json> {
  const s = castServiceTypes(raw);
  const out: Json = {};
  let fromEnvFiles: Record<string, string> | null = null;
  if (s.env_file !== undefined) fromEnvFiles = await readEnvFiles(s.env_file, ctx, joinPath(at, 'env_file'));
  for (const [key, value] of Object.entries(s)) {
    const path = joinPath(at, key);
    switch (key) {
      case 'env_file':
        break; // merged into environment below
      case 'environment':
      case 'labels':
      case 'annotations':
        out[key] = toStringMap(value, ctx, key === 'environment');
        break;
      case 'build':
        out.build = normalizeBuild(value, ctx, path);
        break;
      case 'depends_on':
        out.depends_on = normalizeDependsOn(value);
        break;
      case 'ports':
        out.ports = Array.isArray(value) ? normalizePorts(value, path, ctx.problems) : value;
        break;
      case 'expose':
        out.expose = Array.isArray(value) ? value.map(String) : value;
        break;
      case 'volumes':
        out.volumes = Array.isArray(value) ? normalizeVolumes(value, ctx, path, ctx.problems) : value;
        break;
      case 'secrets':
      case 'configs':
        out[key] = normalizeFileRefs(value);
        break;
      case 'networks':
        out.networks = normalizeNetworks(value);
        break;
      default:
        out[key] = value;
    }
  }
  if (fromEnvFiles) out.environment = { ...fromEnvFiles, ...((out.environment as Json | undefined) ?? {}) };
  return out;
}
