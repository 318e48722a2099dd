/**
 * How a target's lifecycle test (test/helpers/lifecycle-table.ts) reaches the statuses every target
 * reaches the same way — awaiting_approval, deploying, running, upgrading, and planning held by a
 * planner — given what a deploy of an env sends and how the target holds one: a held deploy waits
 * in its rollout until the env's gate opens (on a host the app's START_WHEN_FILE, on a cluster or
 * ECS the local API server's `holdImage`). The control plane must have projects `auto` and `req`
 * (approval required).
 */
import { expect } from 'vitest';
import type { EnvStatus } from '../../src/contracts/domain.js';
import { waitFor, type Api } from './api.js';
import { lifecycleApi } from './lifecycle-table.js';

export interface ReachOptions {
  readonly api: () => Api;
  /** The compose a deploy of env `name` sends. */
  compose(name: string): unknown;
  /** The compose of a deploy of env `name` that is held in its rollout until `open()` (the hold is
   *  on once this returns); `upgrade`: a new version of the env, which is running. */
  held(name: string, upgrade: boolean): { readonly compose: unknown; readonly open: () => void };
  /** The deploy phase a held deploy waits in: where the target rolls the version out (a host's
   *  `prepare`, whose env.create starts the services; a cluster's or ECS's `start`). */
  readonly heldIn: string;
}

type Dep = { status: string; phases: { name: string; status: string }[] };

export function lifecycleReach(o: ReachOptions) {
  const { env, statusIs } = lifecycleApi(o.api);
  let n = 0;
  /** A number no other env of the file has: env names are made of it. */
  const next = () => ++n;
  const deploy = async (project: string, name: string, compose: unknown = o.compose(name)) => {
    const res = await o.api().post(`/v1/projects/${project}/deploy`, { env: name, compose });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.env.id as string;
  };

  /** The gate of each env held; opening it lets the env's held work go on. */
  const gateOf = new Map<string, () => void>();
  const deployHeld = async (name: string, upgrade: boolean) => {
    const { compose, open } = o.held(name, upgrade);
    const id = await deploy('auto', name, compose);
    gateOf.set(id, open);
    return id;
  };
  /** The env's deploy is claimed by the engine and held in its rollout (`heldIn`), not still
   *  pending nor before it: a stop or teardown then waits for it (stopping, tearing_down) rather
   *  than superseding it before it ran, and the gate opening after the action is what lets it end. */
  const inRollout = (id: string) =>
    waitFor(async () => (await o.api().get(`/v1/deployments?env=${id}`)).body.items.some((d: Dep) => d.status === 'running' && d.phases.find((p) => p.name === o.heldIn)?.status === 'running'), 30_000, `the deploy of ${id} to be held in ${o.heldIn}`);

  /** Env `name`, deployed to `project`, held in `planning`: `holding(name)` resolves once the
   *  project's planner is at work on it (and holds it). */
  const planning = async (project: string, name: string, holding: (name: string) => Promise<void>) => {
    const id = await deploy(project, name);
    await holding(name);
    expect((await env(id)).status).toBe('planning');
    return id;
  };
  const running = async () => {
    const id = await deploy('auto', `e${next()}`);
    await statusIs(id, 'running');
    return id;
  };
  const reach = {
    awaiting_approval: async () => {
      const id = await deploy('req', `e${next()}`);
      await statusIs(id, 'awaiting_approval');
      return id;
    },
    deploying: async () => {
      const id = await deployHeld(`e${next()}`, false);
      await statusIs(id, 'deploying');
      await inRollout(id);
      return id;
    },
    running,
    upgrading: async () => {
      const id = await running();
      await deployHeld((await env(id)).name, true);
      await statusIs(id, 'upgrading');
      await inRollout(id);
      return id;
    },
  } satisfies Partial<Record<EnvStatus, () => Promise<string>>>;

  return {
    next,
    deploy,
    planning,
    reach,
    /** Env `id`'s held work goes on when its gate opens (the table's `openGate`). */
    gate: (id: string, open: () => void) => void gateOf.set(id, open),
    openGate: (id: string) => gateOf.get(id)?.(),
  };
}

/** The image env `name` runs on a cluster or ECS target: one of its own, so holds and failures are per env. */
export const imageOfEnv = (name: string) => `registry.example.test/lifecycle:${name}`;

/** A target whose envs each run an image of their own (`imageOfEnv`; an upgrade's is `-v2`), held
 *  by its local API server's `holdImage` while `start` rolls it out: a cluster, ECS. */
export function imageEnvs(compose: (image: string) => unknown, holdImage: (image: string) => () => void): Omit<ReachOptions, 'api'> {
  return {
    compose: (name) => compose(imageOfEnv(name)),
    held(name, upgrade) {
      const image = `${imageOfEnv(name)}${upgrade ? '-v2' : ''}`;
      return { compose: compose(image), open: holdImage(image) };
    },
    heldIn: 'start',
  };
}
