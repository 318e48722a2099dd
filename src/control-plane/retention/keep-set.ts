/**
 * Snapshot retention (issue 9): which of an env's snapshots are kept, and why. Pure: the
 * retention sweep and `GET /v1/envs/{env}/snapshots` both call it on what the store holds, so the
 * list a user reads is the rule the sweep applies.
 *
 * Kept: the snapshot of the env's current version; those of its last `keepRecent` healthy
 * versions (by number); any version an env forked from it still names as `parent_version`
 * (until that env is torn down); and any version an unfinished operation still needs (the target
 * of a pending or running rollback, the versions of running deployments). Every other version of
 * the env is pruned.
 */

export const DEFAULT_KEEP_SNAPSHOTS = 3;

export interface RetentionVersion {
  readonly id: string;
  readonly number: number;
  readonly healthy: boolean;
  /** The snapshot name the version records (null: none was taken). */
  readonly snapshot: string | null;
}

export interface RetentionInput {
  readonly versions: readonly RetentionVersion[];
  readonly currentVersion: string | null;
  /** Live envs (not torn down) whose parent_version is one of `versions`. */
  readonly forks: readonly { readonly env: string; readonly name: string; readonly parentVersion: string }[];
  /** Versions an unfinished deployment still needs, with that deployment's id and kind. */
  readonly needed: readonly { readonly version: string; readonly deployment: string; readonly kind: string }[];
  /** How many of the latest healthy versions keep their snapshots (besides the current one). */
  readonly keepRecent: number;
}

/** Why a snapshot is kept: `current`, `recent` (one of the last N healthy), `fork` (an env made from it), `operation` (a deployment still needs it). */
export type KeepReason =
  | { readonly kind: 'current' }
  | { readonly kind: 'recent'; readonly rank: number; readonly of: number }
  | { readonly kind: 'fork'; readonly env: string; readonly name: string }
  | { readonly kind: 'operation'; readonly deployment: string; readonly operation: string };

export interface RetentionDecision {
  /** Version id → why its snapshot is kept (only kept versions appear). */
  readonly keep: ReadonlyMap<string, readonly KeepReason[]>;
  /** Versions of the env whose snapshots go (ordered by number). */
  readonly prune: readonly string[];
}

export function decideRetention(input: RetentionInput): RetentionDecision {
  const keep = new Map<string, KeepReason[]>();
  const ids = new Set(input.versions.map((v) => v.id));
  const add = (id: string, reason: KeepReason) => {
    if (!ids.has(id)) return; // a version of another env (a fork's current version is its source's)
    keep.set(id, [...(keep.get(id) ?? []), reason]);
  };
  if (input.currentVersion) add(input.currentVersion, { kind: 'current' });
  const recent = input.versions.filter((v) => v.healthy && v.snapshot !== null).sort((a, b) => b.number - a.number).slice(0, Math.max(0, input.keepRecent));
  recent.forEach((v, i) => add(v.id, { kind: 'recent', rank: i + 1, of: input.keepRecent }));
  for (const f of input.forks) add(f.parentVersion, { kind: 'fork', env: f.env, name: f.name });
  for (const n of input.needed) add(n.version, { kind: 'operation', deployment: n.deployment, operation: n.kind });
  const prune = [...input.versions].sort((a, b) => a.number - b.number).filter((v) => !keep.has(v.id)).map((v) => v.id);
  return { keep, prune };
}

/** One line a person reads: `current`, `recent healthy (2 of 3)`, `fork data-fork (env_…)`, `rollback dep_… needs it`. */
export function describeReason(r: KeepReason): string {
  switch (r.kind) {
    case 'current':
      return 'current';
    case 'recent':
      return `recent healthy (${r.rank} of ${r.of})`;
    case 'fork':
      return `needed by fork ${r.name} (${r.env})`;
    case 'operation':
      return `needed by ${r.operation} ${r.deployment}`;
  }
}
