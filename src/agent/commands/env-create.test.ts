import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DenvError } from '../../contracts/errors.js';
import type { Commands } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { readProcStat } from '../runtimes/process/proc-stat.js';
import { HTTP_SERVER, httpHealth, makeFixture, nodeService, until, type Fixture } from '../testing/fixture.js';
import { envCreate } from './env-create.js';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture({ min: 23000, max: 23499 });
});
afterEach(async () => {
  await fx.cleanup();
});

function payload(version: string, services: Record<string, ServiceSpec>, extra: Partial<Commands['env.create']['payload']> = {}): Commands['env.create']['payload'] {
  return { env: 'env_a', version, services, volumes: [], retire_others: false, ...extra };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

describe('env.create', () => {
  it('starts a process service, waits for HTTP health and reports endpoints, timings and egress', async () => {
    const res = await envCreate.run(payload('ver_1', { web: nodeService(HTTP_SERVER, httpHealth()) }, { volumes: ['data'] }), fx.ctx, Date.now());
    expect(res.outcome).toBe('healthy');
    expect(res.message).toBeNull();
    const port = res.services.web!.port;
    expect(port).toBeGreaterThanOrEqual(23000);
    expect(res.endpoints).toEqual([{ service: 'web', url: `http://127.0.0.1:${port}`, port }]);
    expect(res.started_in_ms).toBeLessThanOrEqual(res.healthy_in_ms!);
    expect(res.datasets).toEqual(['data']);
    expect(res.egress.ok).toBe(true);

    expect((await get(`${res.endpoints[0]!.url}/env/PORT`)).body).toBe(String(port));
    expect((await get(`${res.endpoints[0]!.url}/env/DENV_VOLUME_DATA`)).body).toBe(path.join(fx.dataDir, 'datasets', 'env_a', 'live', 'data'));
    expect((await get(`${res.endpoints[0]!.url}/env/DENV_ENV`)).body).toBe('env_a');

    const state = JSON.parse(await readFile(path.join(fx.dataDir, 'envs', 'env_a', 'state.json'), 'utf8')) as { services: { pid: number; start_time: number; state: string }[] };
    const pid = res.services.web!.pid!;
    expect(state.services[0]).toMatchObject({ pid, start_time: (await readProcStat(pid))!.startTime, state: 'running' });
    expect(await readFile(path.join(fx.dataDir, 'logs', 'env_a', 'ver_1', 'web.log'), 'utf8')).toContain(`listening on ${port}`);
  });

  it('reports start_failed with the exit code and the log tail when the process exits during start', async () => {
    const crash = nodeService('console.log("loading config"); console.error("fatal: no DATABASE_URL"); process.exit(1)', httpHealth());
    const res = await envCreate.run(payload('ver_1', { web: crash }), fx.ctx, Date.now());
    expect(res.outcome).toBe('start_failed');
    expect(res.message).toBe('web exited with code 1 during start');
    expect(res.services.web!.log_tail).toEqual(['loading config', 'fatal: no DATABASE_URL']);
    expect(res.healthy_in_ms).toBeNull();
    expect(fx.ctx.runtime.list('env_a')).toEqual([]);
    expect(await fx.ctx.ports.read()).toEqual({});
  });

  it('reports a program that cannot be spawned as start_failed', async () => {
    const res = await envCreate.run(payload('ver_1', { web: { ...nodeService('', httpHealth()), command: ['/no/such/program'] } }), fx.ctx, Date.now());
    expect(res.outcome).toBe('start_failed');
    expect(res.message).toBe('web: cannot start "/no/such/program": ENOENT (not found)');
  });

  it('reports unhealthy, naming the check and the last failure, and stops only what it started', async () => {
    // web answers 503 from its start: however slow the machine is to start it, 5 s is long enough to hear it.
    const sick = nodeService(`require('http').createServer((q, s) => { s.statusCode = 503; s.end(); }).listen(+process.env.PORT, '127.0.0.1')`, httpHealth(5000));
    const silent = nodeService('setInterval(() => {}, 1000)', httpHealth(400));
    const res = await envCreate.run(payload('ver_1', { web: sick, worker: silent }), fx.ctx, Date.now());
    expect(res.outcome).toBe('unhealthy');
    expect(res.message).toBe('web: GET /health did not answer 2xx within 5000 ms (last: HTTP 503); worker: GET /health did not answer 2xx within 400 ms (last: connection refused)');
    expect(res.services.web!.log_tail).toEqual([]);
    expect(fx.ctx.runtime.list('env_a')).toEqual([]);
    expect(await readProcStat(res.services.web!.pid!)).toBeNull();
  });

  it('supports command and alive health checks', async () => {
    const probe = [process.execPath, '-e', 'require("http").get("http://127.0.0.1:" + process.env.PORT + "/", r => process.exit(r.statusCode === 200 ? 0 : 1)).on("error", () => process.exit(1))'];
    const web = nodeService(HTTP_SERVER, { kind: 'command', test: probe, interval_ms: 100, timeout_ms: 2000, retries: 30, start_period_ms: 0 });
    const idle = nodeService('setInterval(() => {}, 1000)', { kind: 'alive', for_ms: 200 });
    expect((await envCreate.run(payload('ver_1', { web, idle }), fx.ctx, Date.now())).outcome).toBe('healthy');

    const failing = nodeService('setInterval(() => {}, 1000)', { kind: 'command', test: [process.execPath, '-e', 'console.error("db down"); process.exit(3)'], interval_ms: 50, timeout_ms: 2000, retries: 2, start_period_ms: 0 });
    const res = await envCreate.run(payload('ver_2', { worker: failing }), fx.ctx, Date.now());
    expect(res.outcome).toBe('unhealthy');
    expect(res.message).toMatch(/^worker: healthcheck ".*" failed 2 times \(last: exit 3: db down\)$/);

    const quitter = nodeService('setTimeout(() => process.exit(2), 50)', { kind: 'alive', for_ms: 2000 });
    expect((await envCreate.run(payload('ver_3', { job: quitter }), fx.ctx, Date.now())).message).toBe('job exited with code 2 during start');
  });

  it('refuses services with an image', async () => {
    const docker: ServiceSpec = { ...nodeService('', httpHealth()), image: 'nginx:1', command: null };
    const err = await envCreate.run(payload('ver_1', { web: docker }), fx.ctx, Date.now()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DenvError);
    expect(err).toMatchObject({ code: 'AGENT_ERROR', message: 'docker runtime not available on this host (service web has an image)' });
  });

  it('retires other versions only when the new one is healthy', async () => {
    const v1 = await envCreate.run(payload('ver_1', { web: nodeService(HTTP_SERVER, httpHealth()) }), fx.ctx, Date.now());
    const v2 = await envCreate.run(payload('ver_2', { web: nodeService(HTTP_SERVER, httpHealth()) }), fx.ctx, Date.now());
    expect(v2.services.web!.port).not.toBe(v1.services.web!.port);
    expect(fx.ctx.runtime.list('env_a').map((r) => r.version)).toEqual(['ver_1', 'ver_2']);

    const bad = await envCreate.run(payload('ver_3', { web: nodeService('process.exit(1)', httpHealth()) }, { retire_others: true }), fx.ctx, Date.now());
    expect(bad.outcome).toBe('start_failed');
    expect(fx.ctx.runtime.list('env_a').map((r) => r.version)).toEqual(['ver_1', 'ver_2']);

    const v4 = await envCreate.run(payload('ver_4', { web: nodeService(HTTP_SERVER, httpHealth()) }, { retire_others: true }), fx.ctx, Date.now());
    expect(v4.outcome).toBe('healthy');
    expect(fx.ctx.runtime.list('env_a').map((r) => r.version)).toEqual(['ver_4']);
    expect(Object.values(await fx.ctx.ports.read())).toEqual(['env_a/ver_4/web']);
    expect(await readProcStat(v1.services.web!.pid!)).toBeNull();
  });

  it('is adopted, not started again, by a restarted agent (second runtime on the same data dir)', async () => {
    const spec = { web: nodeService(HTTP_SERVER, httpHealth()) };
    const first = await envCreate.run(payload('ver_1', spec), fx.ctx, Date.now());
    fx.ctx.runtime.close(); // the agent goes away; its processes do not

    const ctx2 = await fx.reopen();
    expect(fx.log).toContain(`adopted env_a/ver_1/web (pid ${first.services.web!.pid})`);
    const again = await envCreate.run(payload('ver_1', spec), ctx2, Date.now());
    expect(again.outcome).toBe('healthy');
    expect(again.services.web).toEqual(first.services.web);
    expect(ctx2.runtime.list('env_a')).toHaveLength(1);
    expect((await get(`${again.endpoints[0]!.url}/`)).status).toBe(200);
  });

  it('restarts a healthy service that dies, on the same port, counting restarts', async () => {
    const res = await envCreate.run(payload('ver_1', { web: nodeService(HTTP_SERVER, httpHealth()) }), fx.ctx, Date.now());
    const id = { env: 'env_a', version: 'ver_1', service: 'web' };
    process.kill(res.services.web!.pid!, 'SIGKILL');
    await until(async () => fx.ctx.runtime.get(id)?.restarts === 1 && (await fx.ctx.runtime.isAlive(id)));
    expect(fx.ctx.runtime.get(id)!.pid).not.toBe(res.services.web!.pid);
    await until(async () => (await get(`${res.endpoints[0]!.url}/`).catch(() => ({ status: 0 }))).status === 200);
  });
});
