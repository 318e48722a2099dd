/**
 * The web UI of the other targets, in headless Chromium against a real control plane: a real cluster
 * agent (`denv agent --kubernetes`) on the local Kubernetes API server, and an AWS account on the
 * local AWS API server (test/helpers/kube-api-server.ts, aws-api-server.ts: contract-tested only).
 * The hosts page shows the cluster agent as a Kubernetes cluster and the account, which shows the
 * hand-over requested once an aws_ecs env on it is separated; a kubernetes env's page shows its
 * target and offers none of the operations that need datasets on a host. Screenshots go to
 * `test-output/targets-ui/`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { startAwsApiServer, type FakeAws } from '../helpers/aws-api-server.js';
import { launchBrowser, outputDir, type Browser } from '../helpers/browser.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { startKubeApiServer, type KubeApiServer } from '../helpers/kube-api-server.js';
import { spawnDenv, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const KEYS = { accessKeyId: 'AKIADENVTESTKEY00001', secretAccessKey: 'denv-test-secret-key-0000000000000000' };
const ecsCompose = { services: { api: { image: 'registry.example.test/api:1.0', ports: ['3000'] } }, 'x-denv': { target: 'aws_ecs' } };
const kubeCompose = (image: string) => ({ services: { web: { image, ports: ['8080'] } }, 'x-denv': { target: 'kubernetes' } });
const SHOTS = outputDir('targets-ui');

describe('web UI of the kubernetes and aws_ecs targets', () => {
  let cp: ControlPlane;
  let api: Api;
  let aws: FakeAws;
  let kube: KubeApiServer;
  let agent: Child;
  let b: Browser;
  let accountId: string;

  beforeAll(async () => {
    const dir = freshDataDir();
    [aws, kube, cp, b] = await Promise.all([
      startAwsApiServer({ ...KEYS, region: 'eu-central-1' }),
      startKubeApiServer({ certManager: true, ingressClasses: [{ name: 'nginx', default: true }], storageClasses: [{ name: 'standard', default: true }] }),
      storeOptions('pglite', path.join(dir, 'cp')).then((store) => startControlPlane({ port: 0, ...store, ...FAST_TIMINGS, liveStatusMs: 500, log: () => {} })),
      launchBrowser(),
    ]);
    api = new Api(cp.url, cp.adminToken);
    const kubeconfig = kube.kubeconfig(path.join(mkdtempSync(path.join(tmpdir(), 'denv-kube-')), 'kubeconfig'));
    agent = spawnDenv(['agent', '--kubernetes', '--kubeconfig', kubeconfig, '--control', cp.url, '--data-dir', path.join(dir, 'cluster-agent'), '--name', 'cluster-a'], { DENV_ENROLLMENT_KEY: await cp.createEnrollmentKey() });
    const added = await api.post('/v1/aws-accounts', { name: 'prod', region: 'eu-central-1', access_key_id: KEYS.accessKeyId, secret_access_key: KEYS.secretAccessKey, endpoint: aws.url });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    accountId = added.body.id;
    expect((await api.post('/v1/projects', { name: 'shop', approval: 'auto' })).status).toBe(201);
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { name: string; status: string }) => h.name === 'cluster-a' && h.status === 'connected'), 30_000, 'the cluster agent to connect');
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await agent?.kill();
    await cp?.close();
    await kube?.close();
    await aws?.close();
  });

  const shot = (name: string) => b.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const testid = (id: string) => b.page.locator(`[data-testid="${id}"]`);
  /** Deploy (approval `auto`) and wait for the deployment to succeed. */
  const deploy = async (env: string, compose: unknown, target?: Record<string, string>): Promise<string> => {
    const res = await api.post('/v1/projects/shop/deploy', { env, compose, ...(target ? { target } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await api.finished(res.body.deployment.id, 60_000);
    expect(done.status, JSON.stringify(done.phases)).toBe('succeeded');
    return res.body.env.id as string;
  };

  it('shows the cluster agent as a Kubernetes cluster and the AWS account, with no hand-over requested', async () => {
    const { page } = b;
    await page.goto(`${cp.url}/hosts#token=${cp.adminToken}`);
    const cluster = testid('host-cluster-a-cluster');
    await cluster.waitFor();
    const text = (await cluster.textContent())!;
    expect(text).toContain('Kubernetes cluster');
    expect(text).toContain('v1.31.2');
    expect(text).toContain(`namespace ${kube.namespace}`);
    expect(text).toContain('nginx');
    // No process/docker runtime details, and no address of its own.
    const row = (await testid('host-cluster-a').textContent())!;
    expect(row).not.toMatch(/process|docker|127\.0\.0\.1/);

    const account = testid('aws-account-prod');
    await account.waitFor();
    const accountText = (await account.textContent())!;
    expect(accountText).toContain('eu-central-1');
    expect(accountText).toContain(aws.url); // not AWS itself: its endpoint is shown
    expect(accountText).toContain(accountId);
    expect(await testid('aws-account-prod-handover').count()).toBe(0);
    // How denv reaches it and whether it takes envs.
    expect(await testid('aws-account-prod-kind').textContent()).toBe('keys');
    expect(await testid('aws-account-prod-state').getAttribute('data-state')).toBe('ready');
    await shot('hosts');
  });

  it('shows hand-over requested on the account once an aws_ecs env on it is separated', async () => {
    const { page } = b;
    const envId = await deploy('production', ecsCompose, { aws_account: 'prod' });
    const sep = await api.post(`/v1/envs/${envId}/separate`, {});
    expect(sep.status, JSON.stringify(sep.body)).toBe(202);
    expect((await api.finished(sep.body.deployment.id, 30_000)).status).toBe('succeeded');
    const [account] = (await api.get('/v1/aws-accounts')).body.items;
    expect(account.handover_requested_at).toEqual(expect.any(String));

    // The page polls: the marker appears without a reload.
    const marker = testid('aws-account-prod-handover');
    await marker.waitFor({ timeout: 15_000 });
    expect(await marker.textContent()).toContain('hand-over requested');
    expect(await marker.getAttribute('data-at')).toBe(account.handover_requested_at);
    expect(await marker.locator('.badge').isVisible()).toBe(true);
    expect(await testid('aws-handover-note').textContent()).toContain('prod');
    await shot('hosts-handover');
  }, 90_000);

  it("shows a kubernetes env's target and cluster, and offers no fork, snapshot, verify or rollback", async () => {
    const { page } = b;
    const envId = await deploy('web', kubeCompose('registry.example.test/shop:1.0'));
    expect(await deploy('web', kubeCompose('registry.example.test/shop:2.0'))).toBe(envId); // a version to roll back to, were it offered
    await page.goto(`${cp.url}/envs/${envId}`);
    await page.locator('[data-testid="env-status"][data-status="running"]').waitFor();
    expect((await testid('env-target').textContent())!.trim()).toBe('· target kubernetes');
    expect(await page.locator('p.muted', { has: testid('env-target') }).textContent()).toContain('cluster cluster-a (connected');
    // The actions it has are shown; those that need datasets on a host are not.
    await testid('action-stop').waitFor();
    await testid('version-2').waitFor();
    await testid('version-1').waitFor();
    const actions = await page.locator('[data-testid^="action-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(actions.filter((a) => a !== 'action-outcome')).toEqual(['action-replan', 'action-stop', 'action-teardown', 'action-separate']);
    expect(await page.locator('[data-testid^="rollback-"]').count()).toBe(0);
    await shot('env-kubernetes');
  }, 90_000);
});
