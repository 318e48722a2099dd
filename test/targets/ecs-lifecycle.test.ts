/**
 * The env lifecycle (seed 002) on the AWS ECS target: the host's table (test/helpers/lifecycle-table.ts),
 * every (status, action) pair reaching the same outcome, with aws_ecs envs — a control plane applying
 * their plans with the AWS SDK to an account on the local AWS API server (test/helpers/aws-api-server.ts,
 * the real protocols, SigV4 checked), which stands in for AWS.
 *
 * How each status is held or reached, without sleeps (each env runs an image of its own, so holds
 * and failures are per env):
 *   planning                 ECS planning is deterministic, reads only the store and ends at once: no
 *                            outside answer to hold. The seam is the control plane's `planner` option,
 *                            which tests already use to hold a host env's plan (no product caller sets
 *                            it): a planner with `planEcs` (lifecycle/planner.ts, the one product
 *                            change) is handed each aws_ecs env's plan before it is recorded, and the
 *                            held planner (test/helpers/held-planner.ts) holds `hold-…` envs there until
 *                            the end of the file, then records targets/ecs/'s plan unchanged
 *   deploying, upgrading     the env's image is held (`holdImage`): its tasks stay PROVISIONING, with no
 *                            reason to give up on, so the deploy's `start` (waitStable) waits until the
 *                            gate opens (the release); the env is reached once `start` is under way
 *   stopping, tearing_down   stop / teardown of a deploying env: they wait for the held deploy
 *   degraded                 a running env's task stops (its container exited: `stopTasks`) and its
 *                            replacement is held PROVISIONING: the control plane's ECS status sweep
 *                            (every 300 ms) shows 0 of 1 ready and the monitor flips the env; the gate
 *                            lets the replacement run
 *   failed                   a first deploy whose image cannot be pulled (`failImage`): the circuit
 *                            breaker fails the rollout
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { EnvStatus } from '../../src/contracts/domain.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api } from '../helpers/api.js';
import { startAwsApiServer, type FakeAws } from '../helpers/aws-api-server.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { heldPlanner } from '../helpers/held-planner.js';
import { imageEnvs, imageOfEnv, lifecycleReach } from '../helpers/lifecycle-reach.js';
import { lifecycleApi, lifecycleTable, reachedByActions } from '../helpers/lifecycle-table.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const KEYS = { accessKeyId: 'AKIADENVTESTKEY00002', secretAccessKey: 'denv-test-secret-key-1111111111111111' };
const REGION = 'eu-central-1';
const compose = (image: string) => ({ services: { web: { image, ports: ['8080'] } }, 'x-denv': { target: 'aws_ecs' } });

describe('env lifecycle on the aws_ecs target: every (status, action) pair', () => {
  let cp: ControlPlane;
  let api: Api;
  let aws: FakeAws;
  const planner = heldPlanner();

  beforeAll(async () => {
    aws = await startAwsApiServer({ ...KEYS, region: REGION });
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, liveStatusMs: 300, planner, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    const account = await api.post('/v1/aws-accounts', { name: 'prod', region: REGION, access_key_id: KEYS.accessKeyId, secret_access_key: KEYS.secretAccessKey, endpoint: aws.url });
    expect(account.status, JSON.stringify(account.body)).toBe(201);
    expect((await api.post('/v1/projects', { name: 'auto' })).status).toBe(201);
    expect((await api.post('/v1/projects', { name: 'req', approval: 'required' })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    planner.release(); // before the control plane closes: it waits for the plans in progress
    await cp?.close();
    await aws?.close();
  });

  const { env, statusIs } = lifecycleApi(() => api);
  const { next, deploy, planning, reach, gate, openGate } = lifecycleReach({
    api: () => api,
    ...imageEnvs(compose, (image) => aws.holdImage(image)),
  });

  /** A fresh env in `status`. */
  const REACH: Record<EnvStatus, () => Promise<string>> = {
    ...reach,
    planning: () => planning('auto', `hold-${next()}`, planner.holding),
    degraded: async () => {
      const id = await reach.running();
      const image = imageOfEnv((await env(id)).name);
      gate(id, aws.holdImage(image)); // the replacement task waits
      expect(aws.stopTasks(image, 'Essential container in task exited')).toBe(1);
      await statusIs(id, 'degraded');
      return id;
    },
    failed: async () => {
      const name = `e${next()}`;
      aws.failImage(imageOfEnv(name), 'CannotPullContainerError: pull image manifest has been retried 5 time(s): manifest unknown');
      const id = await deploy('auto', name);
      await statusIs(id, 'failed');
      return id;
    },
    ...reachedByActions(() => api, { running: reach.running, deploying: reach.deploying }),
  };

  lifecycleTable({ api: () => api, reach: REACH, openGate });
});
