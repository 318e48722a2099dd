/**
 * verdict of a cluster deploy. Success: the version is healthy and current, the env's endpoints are
 * the Ingress hosts, and objects the previous plan named that this one does not (a service removed
 * from the spec) are deleted — never a PersistentVolumeClaim: a claim holds data, and only
 * teardown deletes it. Failure with a previous healthy version: its manifests are applied again and
 * its rollout awaited (`rolled_back`). A failed first deploy (`failed`) deletes what its plan named,
 * claims included: no version of the env ever ran, and a `failed` env's record may be deleted,
 * which must leave nothing behind in the cluster (seed 002: "live cluster resources can never be
 * orphaned by deleting a record"). The pods' last status is in the deploy's evidence and their lines
 * in the env's logs.
 */
import { messageOf } from '../../../../contracts/errors.js';
import type { KubeRef } from '../../../../contracts/kubernetes.js';
import { connectedHost } from '../../../operations/host-link.js';
import type { PhaseContext, PhaseDef, PhaseResult } from '../../../operations/phase.js';
import { loadVersion, tookMs } from '../../../operations/versions.js';
import { imagesOf, inNamespace, planManifests, planNamespace, versionManifests, versionNamespace } from '../cluster-plans.js';
import { refsOf, withImages } from '../plan/index.js';
import { clusterStateOf } from './cluster-state.js';
import { waitRollout } from './rollout.js';

const refKey = (r: KubeRef) => `${r.apiVersion}/${r.kind}/${r.name}`;

/** Objects of `before` that `after` no longer names, claims excluded (pure). */
export function prunedRefs(before: readonly KubeRef[], after: readonly KubeRef[]): KubeRef[] {
  const kept = new Set(after.map(refKey));
  return before.filter((r) => r.kind !== 'PersistentVolumeClaim' && !kept.has(refKey(r)));
}

async function succeed(ctx: PhaseContext): Promise<PhaseResult> {
  const state = clusterStateOf(ctx.state);
  const env = await ctx.env();
  let pruned: KubeRef[] = [];
  if (state.previous_version && state.previous_version !== state.version) {
    const before = (await versionManifests(ctx.db, state.previous_version)) ?? [];
    const after = (await planManifests(ctx.db, ctx.deployment.id)) ?? [];
    pruned = prunedRefs(refsOf(before), refsOf(after));
    // The previous plan's objects, where that plan put them.
    const namespace = inNamespace(await versionNamespace(ctx.db, state.previous_version));
    if (pruned.length > 0) await ctx.call(await connectedHost(ctx, env.host, 'verdict'), 'kube.delete', { env: env.id, refs: pruned, ...namespace }, 'prune');
  }
  await ctx.db.tx(async (tx) => {
    await tx.query('update versions set healthy = true where id = $1', [state.version]);
    await tx.query('update envs set current_version = $2, endpoints = $3, last_error = null, updated_at = now() where id = $1', [env.id, state.version, JSON.stringify(state.endpoints ?? [])]);
  });
  return { status: 'ok', evidence: { version: state.version, took_ms: tookMs(ctx), ...(pruned.length > 0 ? { pruned } : {}) }, outcome: 'succeeded' };
}

async function revert(ctx: PhaseContext): Promise<PhaseResult> {
  const state = clusterStateOf(ctx.state);
  const previous = state.previous_version ? await loadVersion(ctx.db, state.previous_version) : undefined;
  // Reverted whenever a healthy previous version exists, even if prepare's apply failed part-way
  // (what it applied is unknown; applying the previous manifests again is idempotent).
  if (!state.previous_version) return removeFirst(ctx);
  if (!previous?.healthy) {
    return { status: 'ok', evidence: { reverted: 'no previous version', left_applied: state.applied ?? [], took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
  try {
    const manifests = await versionManifests(ctx.db, previous.id);
    if (!manifests) throw new Error(`version ${previous.id} has no stored plan`);
    const host = await connectedHost(ctx, state.host, 'verdict');
    const patched = withImages(manifests, imagesOf(previous.spec));
    await ctx.call(host, 'kube.apply', { env: ctx.deployment.env, version: previous.id, manifests: patched, ...inNamespace(await versionNamespace(ctx.db, previous.id)) }, 'rollback');
    await waitRollout(ctx, host, patched, 'rollback-wait'); // a key of its own: one key is one command
    await ctx.db.query('update envs set current_version = $2, updated_at = now() where id = $1', [ctx.deployment.env, previous.id]);
    return { status: 'ok', evidence: { reverted_to: previous.id, took_ms: tookMs(ctx) }, outcome: 'rolled_back' };
  } catch (err) {
    return { status: 'failed', evidence: { reverted: `rollback failed: ${messageOf(err)}`, took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
}

/** A failed first deploy: deletes what its plan named (those objects the env owns; the agent forgets
 *  the env). The host unreachable: the objects stay, said in the evidence; teardown deletes them. */
async function removeFirst(ctx: PhaseContext): Promise<PhaseResult> {
  const state = clusterStateOf(ctx.state);
  const refs = refsOf((await planManifests(ctx.db, ctx.deployment.id)) ?? []);
  if (refs.length === 0 || !state.host) return { status: 'ok', evidence: { reverted: 'no previous version', took_ms: tookMs(ctx) }, outcome: 'failed' };
  try {
    const host = await connectedHost(ctx, state.host, 'verdict');
    const namespace = inNamespace(await planNamespace(ctx.db, ctx.deployment.id));
    const res = await ctx.call(host, 'kube.delete', { env: ctx.deployment.env, refs, forget: true, ...namespace }, 'remove-first');
    return { status: 'ok', evidence: { reverted: 'no previous version', removed: res.deleted, ...(res.kept.length > 0 ? { kept: res.kept } : {}), took_ms: tookMs(ctx) }, outcome: 'failed' };
  } catch (err) {
    return { status: 'ok', evidence: { reverted: 'no previous version', left_applied: refs, remove_error: messageOf(err), took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
}

export const clusterVerdict: PhaseDef = {
  name: 'verdict',
  run: (ctx) => (ctx.failure ? revert(ctx) : succeed(ctx)),
};
