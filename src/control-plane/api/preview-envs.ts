/**
 * Preview environments (issue 13): an env per pull request (`pr-<number>`) or per branch asked for
 * by hand, deployed from the repository at its head commit. A new preview starts as a **fork of
 * production's latest healthy snapshot** — production's data, on btrfs in O(1) — and its deploy
 * queues behind the fork (one deployment of an env at a time); without such a snapshot it starts
 * empty. A preview that exists is redeployed at the new commit. Closing one tears it down
 * (processes, datasets, routes and ports go with it).
 */
import { DenvError } from '../../contracts/errors.js';
import type { EnvRow, ProjectRow } from '../store/rows.js';
import { liveEnvNamed } from './lookup.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { assertForkable, createFork } from './fork-source.js';
import type { ApiContext } from './route.js';
import { startDeployment } from './start-deployment.js';
import { performAction } from '../lifecycle/actions.js';
import { loadVersion, type VersionRecord } from '../operations/versions.js';
import { sourceSpec } from './source-spec.js';

/** A preview's env name for pull request `n`. */
export const prPreviewName = (n: number) => `pr-${n}`;

/** An env name for a branch's preview: `preview-<branch>`, lowercased, other characters as `-` (≤ 63). */
export function branchPreviewName(ref: string): string {
  return `preview-${ref.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, 63).replace(/-+$/, '');
}

/** The live preview made by hand for `branch` (`preview-<branch>`), or null. */
export async function branchPreview(db: Db, project: string, branch: string): Promise<EnvRow | null> {
  const env = await liveEnvNamed(db, project, branchPreviewName(branch));
  return env && env.stage === 'preview' && env.status !== 'tearing_down' ? env : null;
}

/** Production's latest healthy snapshot that can still be forked; null when there is none. */
async function productionSnapshot(db: Db, project: string): Promise<VersionRecord | null> {
  const prod = await liveEnvNamed(db, project, 'production');
  if (!prod) return null;
  const ids = await db.query<{ id: string }>('select id from versions where env = $1 and healthy and snapshot is not null order by number desc limit 10', [prod.id]);
  for (const { id } of ids) {
    const v = await loadVersion(db, id);
    if (v && (await assertForkable(db, v).then(() => true, () => false))) return v;
  }
  return null;
}

export interface PreviewStarted {
  readonly deployment: string;
  readonly env: string;
  /** The production version whose snapshot it was forked from (null: it existed, or there was none). */
  readonly forked_from: string | null;
}

/** Deploy `ref` of `project`'s repository to its preview env `name`, forking production's data first when the preview is new. */
export async function openPreview(ctx: ApiContext, project: ProjectRow, o: { readonly name: string; readonly ref: string; readonly branch: string | null }): Promise<PreviewStarted> {
  if (o.name === 'production') throw new DenvError('BAD_REQUEST', 'a preview cannot be named production');
  const spec = await sourceSpec(ctx.specs, ctx.sources, project, { ref: o.ref });
  const source = o.branch ? { ...spec.source!, branch: o.branch } : spec.source!;
  let forkedFrom: string | null = null;
  const started = await startDeployment(ctx.db, ctx.bus, {
    team: project.team, project: project.id, envName: o.name, stage: 'preview', spec: { ...spec, source }, warm: null, target: null,
    async before(tx) {
      if (await liveEnvNamed(tx, project.id, o.name)) return;
      const snapshot = await productionSnapshot(tx, project.id);
      if (!snapshot) return;
      const fork = await createFork(tx, { team: project.team, project: project.id, name: o.name, stage: 'preview', version: snapshot });
      forkedFrom = snapshot.id;
      await appendEvent(tx, { team: project.team, subject: `env:${fork.env.id}`, type: 'preview.forked', data: { from_version: snapshot.id, from_env: snapshot.env, deployment: fork.deployment.id } });
    },
  });
  return { deployment: started.deployment.id, env: started.env.id, forked_from: forkedFrom };
}

/** Tear the preview env `name` down; null when there is none. */
export async function closePreview(ctx: ApiContext, project: ProjectRow, name: string): Promise<{ env: string; deployment: string | null } | null> {
  const out = await ctx.db.tx(async (tx) => {
    const env = await liveEnvNamed(tx, project.id, name);
    if (!env) return null;
    if (env.stage !== 'preview') throw new DenvError('BAD_REQUEST', `env ${name} is not a preview (its stage is ${env.stage})`);
    const done = await performAction(tx, project.team, env.id, 'teardown');
    return { env: env.id, deployment: done.deployment?.id ?? null };
  });
  ctx.bus.emit('kick');
  return out;
}
