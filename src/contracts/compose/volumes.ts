/**
 * A service's `volumes` in the long form `docker compose config` prints:
 * `{type, source?, target, read_only?, bind?|volume?|tmpfs?}`.
 *
 * Short syntax (Compose specification, services.volumes): `[SOURCE:]TARGET[:MODE]`. A SOURCE
 * starting with `.`, `/` or `~` is a bind mount, resolved to an absolute path against the
 * directory of the file that declares it (`~` is the user's home, from `HOME`); any other SOURCE
 * names a volume, which stays a name. No SOURCE is an anonymous volume. MODE is a comma list of
 * `ro`/`rw`, `z`/`Z` (SELinux), `nocopy`, a propagation (`shared`, `rslave` …) or a consistency
 * (`cached` …, accepted and dropped as Compose does). Long syntax bind sources are resolved the same way.
 */
import path from 'node:path';
import { unescapeDollars } from './interpolate.js';
import { isMap, joinPath, type Problems } from './problems.js';

export interface VolumeMount {
  readonly type: string;
  readonly source?: string;
  readonly target: string;
  readonly read_only?: true;
  readonly [extra: string]: unknown;
}

const PROPAGATIONS = new Set(['shared', 'slave', 'private', 'rshared', 'rslave', 'rprivate']);
const CONSISTENCY = new Set(['cached', 'delegated', 'consistent']);
const MODE_WORDS = new Set(['ro', 'rw', 'z', 'Z', 'nocopy', ...PROPAGATIONS, ...CONSISTENCY]);

export interface PathContext {
  /** Absolute directory relative paths resolve against. */
  readonly dir: string;
  /** The user's home for `~`, or undefined when unknown (then `~` paths are refused). */
  readonly home: string | undefined;
}

/**
 * An absolute host path for a path written in a Compose file, or null when `~` cannot be
 * expanded. Works on escaped-form text: `$$` survives path.resolve unchanged.
 */
export function resolveHostPath(p: string, ctx: PathContext): string | null {
  if (p === '~' || p.startsWith('~/')) return ctx.home === undefined ? null : path.join(ctx.home, p.slice(1));
  return path.resolve(ctx.dir, p);
}

function isBindSource(source: string): boolean {
  return source.startsWith('.') || source.startsWith('/') || source.startsWith('~');
}

/** One short-syntax volume as a long-form mount; throws with a reason. */
export function parseVolumeSpec(spec: string, ctx: PathContext): VolumeMount {
  const parts = spec.split(':');
  let source = '';
  let target: string;
  let mode = '';
  if (parts.length === 1) target = parts[0]!;
  else if (parts.length === 2) {
    // `/data:ro` is an anonymous volume with a mode; `src:/data` is a mount.
    if (parts[0]!.startsWith('/') && parts[1]!.split(',').every((w) => MODE_WORDS.has(w))) [target, mode] = parts as [string, string];
    else [source, target] = parts as [string, string];
  } else if (parts.length === 3) [source, target, mode] = parts as [string, string, string];
  else throw new Error(`${JSON.stringify(unescapeDollars(spec))} is not [SOURCE:]TARGET[:MODE]`);
  if (target === '') throw new Error(`${JSON.stringify(unescapeDollars(spec))} has no target path`);
  const words = mode === '' ? [] : mode.split(',');
  for (const w of words) if (!MODE_WORDS.has(w)) throw new Error(`unknown volume mode ${JSON.stringify(w)} (allowed: ${[...MODE_WORDS].join(', ')})`);
  const readOnly = words.includes('ro');
  if (source === '') {
    return { type: 'volume', target, ...(readOnly ? { read_only: true as const } : {}), volume: {} };
  }
  if (isBindSource(source)) {
    const abs = resolveHostPath(source, ctx);
    if (abs === null) throw new Error(`cannot expand ~ in ${JSON.stringify(source)}: HOME is not set`);
    const selinux = words.find((w) => w === 'z' || w === 'Z');
    const propagation = words.find((w) => PROPAGATIONS.has(w));
    return {
      type: 'bind',
      source: abs,
      target,
      ...(readOnly ? { read_only: true as const } : {}),
      bind: { create_host_path: true, ...(selinux ? { selinux } : {}), ...(propagation ? { propagation } : {}) },
    };
  }
  return {
    type: 'volume',
    source,
    target,
    ...(readOnly ? { read_only: true as const } : {}),
    volume: words.includes('nocopy') ? { nocopy: true } : {},
  };
}

/** Every entry of a service's `volumes` in long form; problems name the entry. */
export function normalizeVolumes(value: readonly unknown[], ctx: PathContext, path: string, problems: Problems): VolumeMount[] {
  const out: VolumeMount[] = [];
  value.forEach((entry, i) => {
    const at = joinPath(path, i);
    if (typeof entry === 'string') {
      try {
        out.push(parseVolumeSpec(entry, ctx));
      } catch (err) {
        problems.add(at, (err as Error).message);
      }
      return;
    }
    if (!isMap(entry)) return problems.add(at, 'expected a volume string or a mapping');
    const { type, source, target, read_only, ...extra } = entry;
    if (typeof type !== 'string') return problems.add(joinPath(at, 'type'), 'expected one of bind, volume, tmpfs, npipe, cluster, image');
    if (typeof target !== 'string' || target === '') return problems.add(joinPath(at, 'target'), 'expected the path inside the container');
    let src = typeof source === 'string' && source !== '' ? source : undefined;
    if (type === 'bind') {
      if (src === undefined) return problems.add(joinPath(at, 'source'), 'a bind mount needs a source path');
      const abs = resolveHostPath(src, ctx);
      if (abs === null) return problems.add(joinPath(at, 'source'), `cannot expand ~ in ${JSON.stringify(src)}: HOME is not set`);
      src = abs;
    }
    out.push({ type, ...(src !== undefined ? { source: src } : {}), target, ...(read_only === true ? { read_only: true as const } : {}), ...extra });
  });
  return out;
}
