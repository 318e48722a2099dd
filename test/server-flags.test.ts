/**
 * `denv server --heartbeat --degraded-after --disconnected-after` (issue 11, item 6): operators
 * and tests set the heartbeat timings of a real server process. A real agent is frozen (SIGSTOP):
 * its host turns degraded, then disconnected, at the times given, and connected again once it
 * runs.
 *
 * `--max-unauthenticated-agents --hello-timeout --streams-per-token` (issue 10): the abuse limits
 * are the operator's to set, on a real server process, and each holds at the value given.
 *
 * `--aws-operator-credentials` (issue 16): the operator's AWS keys come from a file only its owner
 * can read (checked against the local AWS API server, which names who signed).
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Api, waitFor } from './helpers/api.js';
import { spawnDenv, startAgentProcess, type Child } from './helpers/processes.js';
import { freshDataDir, seedPGlite } from './helpers/stores.js';
import { freePort } from './helpers/free-port.js';
import { startAwsApiServer, type FakeAws } from './helpers/aws-api-server.js';

describe('denv server heartbeat flags', () => {
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) {
      c.proc.kill('SIGCONT');
      await c.kill('SIGKILL');
    }
  });

  it('marks a silent host degraded and then disconnected at the times given on the command line', async () => {
    const dataDir = freshDataDir();
    const cpDir = join(dataDir, 'cp');
    seedPGlite(cpDir);
    const port = await freePort();
    const server = spawnDenv(['server', '--port', String(port), '--data-dir', cpDir, '--heartbeat', '200', '--degraded-after', '1000', '--disconnected-after', '2500']);
    children.push(server);
    await server.waitForOutput(/127\.0\.0\.1/);
    const api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());
    const agent = startAgentProcess({ control: api.url, enrollmentKey: (await api.post('/v1/enrollment-keys', {})).body.key, dataDir: join(dataDir, 'agent') });
    children.push(agent);
    const status = async () => ((await api.get('/v1/hosts')).body.items[0] as { status: string } | undefined)?.status;
    await waitFor(async () => (await status()) === 'connected', 30_000, 'the agent to connect');

    agent.proc.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await waitFor(async () => (await status()) === 'degraded', 10_000, 'degraded');
    const degradedIn = Date.now() - stoppedAt;
    await waitFor(async () => (await status()) === 'disconnected', 10_000, 'disconnected');
    const disconnectedIn = Date.now() - stoppedAt;
    // The defaults are 2 min and 10 min: only the flags make these seconds.
    expect(degradedIn).toBeLessThan(10_000);
    expect(disconnectedIn).toBeGreaterThan(degradedIn);
    agent.proc.kill('SIGCONT');
    await waitFor(async () => (await status()) === 'connected', 30_000, 'connected again');
  });

  it('holds agent sockets and event streams to the limits given on the command line', async () => {
    const dataDir = freshDataDir();
    const cpDir = join(dataDir, 'cp');
    seedPGlite(cpDir);
    const port = await freePort();
    const server = spawnDenv(['server', '--port', String(port), '--data-dir', cpDir, '--max-unauthenticated-agents', '1', '--hello-timeout', '700', '--streams-per-token', '2']);
    children.push(server);
    await server.waitForOutput(/127\.0\.0\.1/);
    const api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());

    // One silent socket is held (the default is 64); a second is refused at the upgrade.
    const silent = new WebSocket(`ws://127.0.0.1:${port}/agent/ws`);
    const openedAt = await new Promise<number>((resolve, reject) => { silent.once('open', () => resolve(Date.now())); silent.once('error', reject); });
    const closed = new Promise<{ code: number; after: number }>((resolve) => silent.once('close', (code) => resolve({ code, after: Date.now() - openedAt })));
    const second = new WebSocket(`ws://127.0.0.1:${port}/agent/ws`);
    const refusedWith = await new Promise<number>((resolve, reject) => {
      second.once('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode ?? 0); });
      second.once('open', () => reject(new Error('a second unauthenticated socket was accepted over --max-unauthenticated-agents 1')));
      second.once('error', () => {});
    });
    expect(refusedWith).toBe(503);
    // The silent one is closed at the hello deadline given (the default is 10 s).
    const { code, after } = await closed;
    expect(code).toBe(4008);
    expect(after).toBeGreaterThanOrEqual(600);
    expect(after).toBeLessThan(9000);

    // Two event streams per token (the default is 20); the third is refused with the limit named.
    await api.post('/v1/projects', { name: 'watched', approval: 'required' });
    const { env } = (await api.post('/v1/projects/watched/deploy', { compose: { services: { web: { command: ['true'] } } } })).body as { env: { id: string } };
    const held: AbortController[] = [];
    const stream = async () => {
      const ac = new AbortController();
      held.push(ac);
      return fetch(`${api.url}/v1/envs/${env.id}/status/stream`, { headers: { authorization: `Bearer ${api.token}` }, signal: ac.signal });
    };
    try {
      expect((await stream()).status).toBe(200);
      expect((await stream()).status).toBe(200);
      const third = await stream();
      expect(third.status).toBe(429);
      expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(/the limit is 2\b/);
    } finally {
      for (const ac of held) ac.abort();
    }
  });
});

describe('denv server --aws-operator-credentials', () => {
  const children: Child[] = [];
  let aws: FakeAws | undefined;
  afterAll(async () => {
    for (const c of children) await c.kill('SIGKILL');
    await aws?.close();
  });
  const OPERATOR = { accessKeyId: 'AKIADENVOPERATOR0002', secretAccessKey: 'denv-operator-secret-0000000000000002' };

  it("reads the operator's keys from a file only its owner can read, and refuses one others can", async () => {
    aws = await startAwsApiServer({ ...OPERATOR, region: 'us-east-1', accountId: '210987654321' });
    const dataDir = freshDataDir();
    const file = join(dataDir, 'aws-operator.json');
    writeFileSync(file, JSON.stringify({ access_key_id: OPERATOR.accessKeyId, secret_access_key: OPERATOR.secretAccessKey, region: 'us-east-1', endpoint: aws.url }), { mode: 0o644 });
    const refused = spawnDenv(['server', '--port', String(await freePort()), '--data-dir', join(dataDir, 'refused'), '--aws-operator-credentials', file]);
    children.push(refused);
    const code = await new Promise<number | null>((resolve) => refused.proc.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(refused.output()).toContain(`${file}: the AWS operator credentials must be readable by their owner only (mode 644; chmod 600 ${file})`);

    chmodSync(file, 0o600);
    const cpDir = join(dataDir, 'cp');
    seedPGlite(cpDir);
    const port = await freePort();
    const server = spawnDenv(['server', '--port', String(port), '--data-dir', cpDir, '--aws-operator-credentials', file]);
    children.push(server);
    await server.waitForOutput(/127\.0\.0\.1/);
    const api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());
    // A role account's trust policy names the operator's account: the server asked AWS who it is, with the file's keys.
    const made = await api.post('/v1/aws-accounts', { name: 'team', region: 'eu-central-1', role_arn: 'arn:aws:iam::123456789012:role/denv' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.trust_policy.Statement[0].Principal).toEqual({ AWS: 'arn:aws:iam::210987654321:root' });
    expect(aws.calls.map((c) => [c.operation, c.accountId])).toEqual([['GetCallerIdentity', '210987654321']]);
  });
});
