/**
 * Seed 002's registry-pull secret, end to end through the control plane: a project's
 * registry_credentials (API and CLI), an aws_ecs env whose image is on that private registry,
 * planned, applied and run — against the local AWS API server, which keeps the registry private:
 * a task pulls only with a secret of the account holding the login that the execution role may read
 * (test/helpers/aws-api-server.ts). The same image in a project without a login fails at `start`
 * with AWS's CannotPullContainerError. The password is never shown.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { startAwsApiServer, type FakeAws } from '../helpers/aws-api-server.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { denvJson } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const KEYS = { accessKeyId: 'AKIADENVTESTKEY00002', secretAccessKey: 'denv-test-secret-key-0000000000000002' };
const SERVER = 'registry.example.test:5000';
const IMAGE = `${SERVER}/acme/api:1.0`;
const LOGIN = { username: 'deploy', password: 'pull-password-3b7e91c4d2' };
const compose = { services: { api: { image: IMAGE, ports: ['3000'] } }, 'x-denv': { target: 'aws_ecs' } };

describe('aws_ecs target: the registry-pull secret', () => {
  let cp: ControlPlane;
  let api: Api;
  let aws: FakeAws;

  beforeAll(async () => {
    aws = await startAwsApiServer({ ...KEYS, region: 'eu-central-1' });
    aws.privateRegistry(SERVER, LOGIN);
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    const account = await api.post('/v1/aws-accounts', { name: 'prod', region: 'eu-central-1', access_key_id: KEYS.accessKeyId, secret_access_key: KEYS.secretAccessKey, endpoint: aws.url });
    expect(account.status, JSON.stringify(account.body)).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await cp?.close();
    await aws?.close();
  });

  const projects = async () => JSON.stringify((await api.get('/v1/projects')).body);

  it('refuses bad registry_credentials with a 400 naming the field, writing nothing', async () => {
    const bad: [unknown, string][] = [
      [{ server: 'https://ghcr.io', username: 'u', password: 'p' }, 'registry_credentials.server'],
      [{ server: SERVER, username: 'u' }, 'registry_credentials.password'],
      [{ server: SERVER, username: 'u', password: 'p', email: 'a@b.c' }, 'email'],
      ['deploy:secret', 'registry_credentials'],
    ];
    for (const [credentials, names] of bad) {
      const res = await api.post('/v1/projects', { name: 'refused', registry_credentials: credentials });
      expect(res.status, JSON.stringify(credentials)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(credentials)).toContain(names);
    }
    expect((await api.get('/v1/projects/refused')).status).toBe(404);

    expect((await api.post('/v1/projects', { name: 'shop' })).status).toBe(201);
    const events = (await api.get('/v1/events?subject=project:' + (await api.get('/v1/projects/shop')).body.id)).body.items.length;
    for (const [credentials] of bad) expect((await api.req('PATCH', '/v1/projects/shop', { registry_credentials: credentials })).status).toBe(400);
    expect((await api.get('/v1/projects/shop')).body.registry_credentials).toBeNull();
    expect((await api.get('/v1/events?subject=project:' + (await api.get('/v1/projects/shop')).body.id)).body.items.length).toBe(events);
  });

  it('takes the login through the CLI (password from the environment) and never shows the password', async () => {
    const shown = await denvJson(cp, ['project', 'registry', 'shop', '--server', SERVER, '--username', LOGIN.username], { DENV_REGISTRY_PASSWORD: LOGIN.password });
    expect(shown.registry_credentials).toEqual({ server: SERVER, username: LOGIN.username });
    const id = shown.id as string;
    for (const read of ['/v1/projects', '/v1/projects/shop', '/v1/projects?reveal=true', '/v1/projects/shop?reveal=true', `/v1/events?subject=project:${id}`]) {
      const res = await api.get(read);
      expect(res.status, read).toBe(200);
      expect(JSON.stringify(res.body), read).not.toContain(LOGIN.password);
    }
    expect(await projects()).toContain(`"registry_credentials":{"server":"${SERVER}","username":"${LOGIN.username}"}`);
  });

  it('deploys the private image: the plan says it pulls with the login, apply makes the secret, the task runs', async () => {
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await api.finished(res.body.deployment.id, 90_000);
    expect(dep.status, JSON.stringify(dep.phases.filter((p) => p.status === 'failed'))).toBe('succeeded');
    const envId = res.body.env.id as string;

    const [plan] = (await api.get(`/v1/envs/${envId}/plans?reveal=true`)).body.items;
    const secret = 'denv/registry/shop/registry.example.test_5000';
    expect(plan.summary).toContain(`- The image is pulled from the private registry ${SERVER} with the project's registry login, kept in Secrets Manager secret ${secret}`);
    expect(plan.artifact).toContain(secret);
    expect(plan.artifact).not.toContain(LOGIN.password);

    const prepare = dep.phases.find((p) => p.name === 'prepare')!.evidence as { created: string[] };
    expect(prepare.created).toEqual(expect.arrayContaining([`secret ${secret}`, 'role policy denv-ecs-execution/denv-pull-shop@registry.example.test_5000']));
    expect(JSON.parse(aws.state.secrets.get(secret)!.versions.at(-1)!.value)).toEqual(LOGIN);
    const running = [...aws.state.tasks.values()].filter((t) => t.lastStatus === 'RUNNING');
    expect(running.map((t) => t.image)).toEqual([IMAGE]);

    // Nothing the API answers about the deploy carries the password.
    for (const read of [`/v1/envs/${envId}`, `/v1/envs/${envId}/plans`, `/v1/deployments/${dep.id}`, `/v1/events?subject=env:${envId}`, `/v1/events?subject=dep:${dep.id}`]) {
      expect(JSON.stringify((await api.get(read)).body), read).not.toContain(LOGIN.password);
    }
  }, 120_000);

  it('the same image in a project without a login fails at start, naming CannotPullContainerError', async () => {
    expect((await api.post('/v1/projects', { name: 'plain' })).status).toBe(201);
    const res = await api.post('/v1/projects/plain/deploy', { env: 'production', compose });
    const dep = await api.finished(res.body.deployment.id, 90_000);
    expect(dep.status).toBe('failed');
    expect(dep.phases.find((p) => p.name === 'prepare')).toMatchObject({ status: 'ok' });
    const start = dep.phases.find((p) => p.name === 'start')!;
    expect(start.status).toBe('failed');
    expect(JSON.stringify(start.evidence)).toContain('CannotPullContainerError');
    expect([...aws.state.secrets.keys()]).toEqual(['denv/registry/shop/registry.example.test_5000']);
  }, 120_000);

  it('a login cleared between planning and approval fails prepare saying what to do; nothing is written in AWS', async () => {
    expect((await api.post('/v1/projects', { name: 'later', approval: 'required', registry_credentials: { server: SERVER, ...LOGIN } })).status).toBe(201);
    const res = await api.post('/v1/projects/later/deploy', { env: 'production', compose });
    const envId = res.body.env.id as string;
    await waitFor(async () => ((await api.get(`/v1/envs/${envId}`)).body.status === 'awaiting_approval' ? true : undefined), 60_000, 'the plan');
    expect((await api.req('PATCH', '/v1/projects/later', { registry_credentials: null })).body.registry_credentials).toBeNull();
    const calls = aws.calls.length;
    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    const dep = await api.finished(res.body.deployment.id, 90_000);
    expect(dep.status).toBe('failed');
    const prepare = dep.phases.find((p) => p.name === 'prepare')!;
    expect(prepare.status).toBe('failed');
    expect((prepare.evidence as { error: string }).error).toBe(
      `the plan pulls the image from ${SERVER} with the project's registry login, and the project has none now: set it again (denv project registry later --server ${SERVER} …) or re-plan`,
    );
    expect(aws.calls.slice(calls).filter((c) => /^(Create|Put|Register|Update|Attach|Authorize)/.test(c.operation))).toEqual([]);
  }, 120_000);
});
