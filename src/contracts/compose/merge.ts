/**
 * Merging two canonical service definitions, as `extends` and an `include` of several files do
 * (Compose specification: merge.md, and services.md "Merging service definitions"). `over` wins:
 *
 *   - mappings merge key by key, recursively (environment, labels, healthcheck, deploy …);
 *   - `command`, `entrypoint` and `healthcheck.test` are replaced, never appended;
 *   - `ports` are unique by {host_ip, target, published, protocol}; `volumes`, `secrets`,
 *     `configs` and `devices` by target; an entry of `over` replaces the one with its key;
 *   - other sequences are appended; `cap_add`, `cap_drop`, `expose`, `security_opt`,
 *     `device_cgroup_rules`, `external_links`, `profiles` and the deploy placement lists
 *     without duplicates; `dns`, `dns_search`, `tmpfs` keep duplicates;
 *   - scalars: `over` wins.
 *
 * Pure; the inputs are not modified.
 */
import { portKey, type PortConfig } from './ports.js';
import { isMap } from './problems.js';

type Json = Record<string, unknown>;

const REPLACED = new Set(['command', 'entrypoint']);
const UNIQUE = new Set(['cap_add', 'cap_drop', 'expose', 'security_opt', 'device_cgroup_rules', 'external_links', 'profiles', 'constraints', 'preferences', 'generic_resources']);

/** The target a short `secrets`/`configs` entry mounts at when it names none (Compose's defaults). */
function fileRefTarget(kind: 'secrets' | 'configs', e: unknown): string {
  if (!isMap(e)) return String(e);
  if (typeof e.target === 'string') return e.target;
  return kind === 'secrets' ? `/run/secrets/${String(e.source)}` : `/${String(e.source)}`;
}

function keyOf(field: string, entry: unknown): string | null {
  switch (field) {
    case 'ports':
      return isMap(entry) ? portKey(entry as unknown as PortConfig) : null;
    case 'volumes':
    case 'devices':
      return isMap(entry) && typeof entry.target === 'string' ? entry.target : typeof entry === 'string' ? entry : null;
    case 'secrets':
    case 'configs':
      return fileRefTarget(field, entry);
    default:
      return null;
  }
}

function mergeKeyed(field: string, base: readonly unknown[], over: readonly unknown[]): unknown[] {
  const out = [...base];
  for (const entry of over) {
    const key = keyOf(field, entry);
    const at = key === null ? -1 : out.findIndex((e) => keyOf(field, e) === key);
    if (at >= 0) out[at] = isMap(out[at]) && isMap(entry) ? mergeValue('', out[at], entry) : entry;
    else out.push(entry);
  }
  return out;
}

function mergeValue(field: string, base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (REPLACED.has(field)) return over;
  if (Array.isArray(base) && Array.isArray(over)) {
    if (field === 'ports' || field === 'volumes' || field === 'devices' || field === 'secrets' || field === 'configs') return mergeKeyed(field, base, over);
    const joined = [...base, ...over];
    if (UNIQUE.has(field)) return [...new Map(joined.map((e) => [JSON.stringify(e), e])).values()];
    return joined;
  }
  if (isMap(base) && isMap(over)) {
    const out: Json = { ...base };
    for (const [k, v] of Object.entries(over)) {
      // healthcheck.test is a command: replaced.
      out[k] = field === 'healthcheck' && k === 'test' ? v : mergeValue(k, base[k], v);
    }
    return out;
  }
  return over;
}

/** `base` with `over` merged on top (the service that extends, or the later file). */
export function mergeService(base: Json, over: Json): Json {
  return mergeValue('', base, over) as Json;
}

/** Paths a file tagged `!reset` / `!override` (yaml-source.ts), from its document root. */
export interface MergeTags {
  readonly resets: readonly (readonly string[])[];
  readonly overrides: readonly (readonly string[])[];
}

function getIn(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (!isMap(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** A copy of `value` with `path` set (or removed when `next` is undefined); shared subtrees are not modified. */
function updateIn(value: Json, path: readonly string[], next: unknown): Json {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  const out: Json = { ...value };
  if (rest.length === 0) {
    if (next === undefined) delete out[key];
    else out[key] = next;
  } else if (isMap(out[key])) out[key] = updateIn(out[key], rest, next);
  return out;
}

/**
 * After `mergeService(base, over)`: honour the merge tags of the file `over` came from. Paths
 * under `prefix` (e.g. `['services', 'web']` for one service) apply: a `!reset` path is removed
 * from the result (nothing inherited survives there), an `!override` path takes `over`'s value
 * as it is.
 */
export function applyMergeTags(merged: Json, over: Json, tags: MergeTags | undefined, prefix: readonly string[] = []): Json {
  if (!tags) return merged;
  const under = (p: readonly string[]): readonly string[] | null => (p.length > prefix.length && prefix.every((k, i) => p[i] === k) ? p.slice(prefix.length) : null);
  let out = merged;
  for (const p of tags.resets) {
    const rel = under(p);
    if (rel) out = updateIn(out, rel, undefined);
  }
  for (const p of tags.overrides) {
    const rel = under(p);
    const value = rel ? getIn(over, rel) : undefined;
    if (rel && value !== undefined) out = updateIn(out, rel, value);
  }
  return out;
}
