/**
 * The client commands end to end: the built `denv` executable (`node bin/denv …`, a child
 * process) against a real control plane and a real agent process (test/helpers/harness.ts),
 * deploying the fixture app as a process service. `followDeployment` / `watchDeployment` are run
 * in-process against the same control plane; the dropped streams they must survive are produced by
 * a TCP relay in front of it that cuts connections, so the server on the other end is the real one.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../src/cli/client.js';
import { followDeployment, watchDeployment } from '../src/cli/watch.js';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { freshDataDir } from './helpers/stores.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv } from './helpers/processes.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
/** Variables the CLI reads; cleared so the caller's shell cannot steer the child processes. */
const CLI_ENV = ['DENV_URL', 'DENV_PORT', 'DENV_DATA_DIR', 'DENV_TOKEN', 'DENV_PROJECT'] as const;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let h: Harness;
let url = '';
let token = '';
/** The control plane's data dir, where it wrote `admin-token`. */
let cpDir = '';
let tmp = '';
/** The fixture app's directory: `<tmp>/project/web`, named in the Compose files as `working_dir: web`. */
let webDir = '';
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const k of CLI_ENV) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  h = await startHarness();
  url = h.cp.url;
  token = h.cp.adminToken;
  cpDir = path.join(h.dataDir, 'cp');
  // Under the run's data root: the agent allows it as a working dir, and its user can reach it.
  tmp = freshDataDir('denv-cli-');
  webDir = path.join(tmp, 'project', 'web');
  mkdirSync(webDir, { recursive: true });
  // .mjs: the fixture is an ES module and this directory has no package.json saying so.
  copyFileSync(FIXTURE, path.join(webDir, 'app.mjs'));
});

afterAll(async () => {
  await h?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  for (const k of CLI_ENV) if (savedEnv[k] !== undefined) process.env[k] = savedEnv[k];
});

/** A Compose file next to `web/`, written as a user would: a relative working_dir, the fixture's health path. */
function composeFile(name: string, environment: Record<string, string>, healthTimeout = '10s'): string {
  const file = path.join(tmp, 'project', name);
  const env = Object.entries(environment).map(([k, v]) => `      ${k}: "${v}"\n`).join('');
  writeFileSync(
    file,
    'services:\n  web:\n    command: ["node", "app.mjs"]\n    working_dir: web\n' +
      `    environment:\n${env}` +
      `    x-denv:\n      health:\n        path: /healthz\n        timeout: ${healthTimeout}\n`,
  );
  return file;
}

/** `node bin/denv <args>`; resolves when it has exited and its output is drained. */
function denv(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawnDenv(args, env);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.proc.stdout!.on('data', (d: Buffer) => out.push(d));
  child.proc.stderr!.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) => {
    child.proc.once('error', reject);
    child.proc.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

/** `denv --url <cp> --token <admin> <args>`. */
const cli = (...args: string[]) => denv(['--url', url, '--token', token, ...args]);

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

function started(stdout: string): { dep: string; env: string } {
  const m = /^deployment (dep_\S+) \(deploy\) started on env production \((env_\S+)\)$/m.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return { dep: m![1]!, env: m![2]! };
}

async function get<T = any>(p: string): Promise<T> {
  const res = await h.api.get<T>(p);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Start a deploy through the API (for the in-process watch tests); returns the deployment id. */
async function apiDeploy(env: string, environment: Record<string, string>): Promise<string> {
  const compose = {
    services: { web: { command: ['node', FIXTURE], environment, 'x-denv': { health: { path: '/healthz', timeout: '10s' } } } },
  };
  const res = await h.api.post('/v1/projects/hello/deploy', { compose, env });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.deployment.id;
}

// Shared by the tests below, which run in order on one control plane.
let goodDep = '';
let badDep = '';
let envId = '';
let endpoint = '';

describe('denv client commands', () => {
  it('deploy --watch creates the project, resolves working_dir against the Compose file, prints each phase and exits 0', async () => {
    const file = composeFile('compose.yaml', { VERSION: 'v1' });
    // No --token: it is read from <data-dir>/admin-token, which the control plane wrote.
    const run = await denv(['deploy', '-f', file, '--project', 'hello', '--watch', '--url', url, '--data-dir', cpDir]);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    ({ dep: goodDep, env: envId } = started(run.stdout));
    expect(run.stdout).toMatch(new RegExp(`^deploy ${goodDep} on ${envId}$`, 'm'));
    for (const phase of ['resolve', 'place', 'prepare', 'start', 'health', 'snapshot', 'verdict']) expect(run.stdout).toMatch(new RegExp(`^  ✓ ${phase} `, 'm'));
    expect(run.stdout).toMatch(/^  – provision\b/m);
    expect(lastLine(run.stdout)).toMatch(/^succeeded in \d/);

    expect(await get(`/v1/projects/hello`)).toMatchObject({ name: 'hello' });
    expect(await get<Deployment>(`/v1/deployments/${goodDep}`)).toMatchObject({ status: 'succeeded', env: envId });
    const versions = (await get(`/v1/envs/${envId}/versions`)).items;
    expect(versions).toHaveLength(1);
    expect(versions[0].services.web.working_dir).toBe(webDir);
    const env = await get<Env>(`/v1/envs/${envId}`);
    endpoint = env.endpoints[0]!.url;
    expect(run.stdout).toContain(`endpoints=web→${endpoint}`);
    expect(await (await fetch(endpoint)).text()).toMatch(/^v1 \d+$/);
  });

  it('deploy --watch of a version that crashes exits 1, prints the failed phase and rolled_back with the error', async () => {
    const run = await cli('deploy', '-f', composeFile('crash.yaml', { VERSION: 'bad', MODE: 'crash' }), '--project', 'hello', '--watch');
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(1);
    badDep = started(run.stdout).dep;
    const dep = await get<Deployment>(`/v1/deployments/${badDep}`);
    expect(dep.status).toBe('rolled_back');
    expect(dep.error).toMatch(/^start: /);
    expect(run.stdout).toMatch(/^  ✗ start /m);
    expect(lastLine(run.stdout)).toMatch(new RegExp(`^rolled_back in \\d.*: ${escapeRegExp(dep.error!)}$`));
    expect(await (await fetch(endpoint)).text()).toMatch(/^v1 \d+$/);
  });

  it('deploy without --watch says how to follow; deployment watch follows it to the end and exits 0, --json prints only the final deployment', async () => {
    // The app listens only once `go` exists: prepare stays running until the watcher has shown it.
    const go = path.join(tmp, 'project', 'go-v3');
    const file = composeFile('slow.yaml', { VERSION: 'v3', START_WHEN_FILE: go }, '120s');
    const run = await cli('deploy', '-f', file, '--project', 'hello');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const { dep } = started(run.stdout);
    expect(run.stdout).toContain(`follow it:  denv deployment watch ${dep}\n`);

    const watcher = spawnDenv(['--url', url, '--token', token, 'deployment', 'watch', dep]);
    let watcherErr = '';
    watcher.proc.stderr!.on('data', (d: Buffer) => (watcherErr += d.toString()));
    const watcherExit = new Promise<number | null>((resolve) => watcher.proc.once('close', resolve));
    const json = cli('deployment', 'watch', dep, '--json');
    await watcher.waitForOutput(/^  … prepare$/m, 60_000); // held back one second, then shown while prepare runs
    writeFileSync(go, '');
    const [code, jsonRun] = await Promise.all([watcherExit, json]);
    expect(watcherErr).toBe('');
    const text = { code, stdout: watcher.output() }; // stderr is empty: the output is stdout
    expect(text.code, text.stdout).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`deploy ${dep} on ${envId}`);
    expect(text.stdout).toMatch(/^  ✓ prepare /m);
    expect(lastLine(text.stdout)).toMatch(/^succeeded in \d/);
    expect(jsonRun).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(jsonRun.stdout)).toEqual(await get(`/v1/deployments/${dep}`));
    endpoint = (await get<Env>(`/v1/envs/${envId}`)).endpoints[0]!.url; // each version gets its own port
    expect(await (await fetch(endpoint)).text()).toMatch(/^v3 \d+$/);
  });

  it('deployment watch exits 1 for a deployment that rolled back', async () => {
    const [text, json] = await Promise.all([cli('deployment', 'watch', badDep), cli('deployment', 'watch', badDep, '--json')]);
    const dep = await get<Deployment>(`/v1/deployments/${badDep}`);
    expect(text).toMatchObject({ code: 1, stderr: '' });
    expect(text.stdout).toMatch(/^  ✗ start /m);
    expect(lastLine(text.stdout)).toMatch(new RegExp(`^rolled_back in \\d.*: ${escapeRegExp(dep.error!)}$`));
    expect(json).toMatchObject({ code: 1, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual(dep);
  });

  it('--json prints what the API answers: deployments, deployment show, events, hosts, env ls, env show', async () => {
    const runs = await Promise.all([
      cli('deployments', '--json'),
      cli('deployment', 'show', goodDep, '--json'),
      cli('events', '--subject', `dep:${goodDep}`, '--json'),
      cli('hosts', '--json'),
      cli('env', 'ls', '--json'),
      cli('env', 'show', envId, '--json'),
    ]);
    for (const r of runs) expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
    const [deps, show, events, hosts, envs, env] = runs.map((r) => JSON.parse(r.stdout));
    expect(deps).toEqual(await get('/v1/deployments'));
    expect(deps.items).toHaveLength(3);
    expect(show).toEqual(await get(`/v1/deployments/${goodDep}`));
    expect(events).toEqual(await get(`/v1/events?subject=dep:${goodDep}`));
    expect(events.items.map((e: { type: string }) => e.type)).toEqual(['deployment.started', 'deployment.finished']);
    // The heartbeat moves on between the two reads, and with it the free disk it reports; everything else must match.
    const apiHosts = await get('/v1/hosts');
    expect(hosts).toEqual({ ...apiHosts, items: apiHosts.items.map((x: { facts: object }) => ({ ...x, last_heartbeat_at: expect.any(String), facts: { ...x.facts, disk_free_bytes: expect.any(Number) } })) });
    expect(hosts.items.map((x: { id: string }) => x.id)).toEqual([h.hostId]);
    expect(envs).toEqual(await get('/v1/envs'));
    expect(env).toEqual(await get(`/v1/envs/${envId}`));
  });

  it('prints tables of the real records, pages with --after, and takes global options after the subcommand and from DENV_DATA_DIR', async () => {
    const [page1, hosts, show, events] = await Promise.all([
      cli('deployments', '--limit', '1'),
      denv(['hosts', '--url', url], { DENV_DATA_DIR: cpDir }),
      cli('env', 'show', envId),
      cli('events', '--subject', `dep:${badDep}`),
    ]);
    expect(page1.code).toBe(0);
    expect(page1.stdout).toMatch(/^ID\s+KIND\s+ENV\s+STATUS\s+CREATED\s+ERROR \/ WAITING FOR\ndep_\S+\s+deploy\s+env_\S+\s+succeeded\s+\d+s ago\n$/);
    const cursor = /^more: add --after (\S+)\n$/.exec(page1.stderr)?.[1];
    expect(cursor, page1.stderr).toBeDefined();
    const page2 = await cli('deployments', '--after', cursor!);
    expect(page2.code).toBe(0);
    expect(page2.stdout).toMatch(new RegExp(`^${badDep}\\s+deploy\\s+${envId}\\s+rolled_back\\s+\\d+s ago\\s+start: `, 'm'));
    expect(page2.stdout).toMatch(new RegExp(`^${goodDep}\\s+deploy\\s+${envId}\\s+succeeded\\s+\\d+s ago$`, 'm'));
    expect(page2.stderr).toBe('');

    expect(hosts).toMatchObject({ code: 0, stderr: '' });
    expect(hosts.stdout).toMatch(new RegExp(`^ID\\s+NAME\\s+FROM\\s+ADDRESS\\s+STATUS\\s+HEARTBEAT\\s+RUNTIMES\\n${h.hostId}\\s+test-host\\s+sidecar\\s+127\\.0\\.0\\.1\\s+connected\\s+\\ds ago\\s+\\S*process\\S*\\n$`));

    expect(show).toMatchObject({ code: 0, stderr: '' });
    expect(show.stdout).toContain(`endpoints:  web → ${endpoint}\n`);
    expect(show.stdout).toMatch(/^status:\s+running$/m);
    expect(show.stdout).toMatch(/^version:\s+ver_\S+$/m);

    expect(events).toMatchObject({ code: 0, stderr: '' });
    const rows = events.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/^\d+\s+\S+\s+deployment\.started\s+kind=deploy control_plane=cp_\w+$/);
    expect(rows[2]).toMatch(/^\d+\s+\S+\s+deployment\.finished\s+.*status=rolled_back/);
    const first = rows[1]!.split(/\s+/)[0]!;
    const after = await cli('events', '--subject', `dep:${badDep}`, '--after', first);
    expect(after).toMatchObject({ code: 0, stderr: '' });
    const afterRows = after.stdout.trimEnd().split('\n');
    expect(afterRows).toHaveLength(2);
    expect(afterRows[1]!.split(/\s+/).slice(0, 3)).toEqual(rows[2]!.split(/\s+/).slice(0, 3));
  });

  it('deploy to a project needing approval shows the plan and how to approve; env approve --watch runs it; a refused action prints the 409', async () => {
    expect((await h.api.post('/v1/projects', { name: 'gated', approval: 'required' })).status).toBe(201);
    const run = await cli('deploy', '-f', composeFile('gated.yaml', { VERSION: 'g1' }), '--project', 'gated');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('plan awaiting approval for env production');
    expect(run.stdout).toContain('web: process `node app.mjs`');
    const envOf = /denv env approve (env_\S+)/.exec(run.stdout);
    expect(envOf, run.stdout).not.toBeNull();
    const approve = await cli('env', 'approve', envOf![1]!, '--watch');
    expect(approve.code, approve.stdout + approve.stderr).toBe(0);
    expect(lastLine(approve.stdout)).toMatch(/^succeeded in /);
    const again = await cli('env', 'approve', envOf![1]!);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(/^error \(INVALID_TRANSITION\): cannot approve env production \(env_\S+\): it is running; allowed now: replan, stop, teardown, separate$/);
    const stop = await cli('env', 'stop', envOf![1]!, '--watch');
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    expect((await get(`/v1/envs/${envOf![1]}`)).status).toBe('stopped');
  });

  it('prints errors as error (CODE): message on stderr and exits 1', async () => {
    const missing = path.join(tmp, 'nowhere');
    const [noDep, watchNoDep, noEnv, badProject, badUrl, badPort, badToken, noToken] = await Promise.all([
      cli('deployment', 'show', 'dep_nope'),
      cli('deployment', 'watch', 'dep_nope'),
      cli('env', 'show', 'env_nope'),
      cli('deploy', '-f', path.join(tmp, 'project', 'compose.yaml'), '--project', 'Not A Slug'),
      denv(['--url', 'http://127.0.0.1:1', '--token', token, 'hosts']),
      denv(['--port', '1', '--token', token, 'hosts']),
      denv(['--url', url, '--token', 'wrong', 'hosts']),
      denv(['--url', url, '--data-dir', missing, 'hosts']),
    ]);
    expect(noDep).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): deployment "dep_nope" not found\n' });
    expect(watchNoDep).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): deployment "dep_nope" not found\n' });
    expect(noEnv).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): env "env_nope" not found\n' });
    expect(badProject).toMatchObject({ code: 1, stdout: '' });
    expect(badProject.stderr).toMatch(/^error \(BAD_REQUEST\): name: .*\n$/);
    for (const [run, at] of [[badUrl, 'http://127.0.0.1:1'], [badPort, 'http://127.0.0.1:1']] as const) {
      expect(run).toEqual({ code: 1, stdout: '', stderr: `error (UNREACHABLE): cannot reach the control plane at ${at}: is \`denv dev\` or \`denv server\` running?\n` });
    }
    expect(badToken).toEqual({ code: 1, stdout: '', stderr: 'error (UNAUTHORIZED): unknown or revoked token\n' });
    expect(noToken).toMatchObject({ code: 1, stdout: '' });
    expect(noToken.stderr).toMatch(/^error \(UNAUTHORIZED\): no API token: pass --token or set DENV_TOKEN \(.*nowhere.admin-token does not exist or is empty\)\n$/);
  });
});

/**
 * A TCP relay to the control plane that records each request line it carries and can cut the
 * next event-stream connection: right after the response headers, or after the first event.
 */
interface Relay {
  readonly url: string;
  readonly requests: string[];
  cutNextStream(when: 'after-headers' | 'after-first-event'): void;
  close(): Promise<void>;
}

async function startRelay(target: string): Promise<Relay> {
  const { hostname, port } = new URL(target);
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let pendingCut: 'after-headers' | 'after-first-event' | null = null;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let cut: typeof pendingCut = null;
    let held = Buffer.alloc(0);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      for (const m of chunk.toString('latin1').matchAll(/^[A-Z]+ (\S+) HTTP\/1\.1\r$/gm)) {
        requests.push(m[1]!);
        if (m[1]!.endsWith('/stream') && pendingCut) [cut, pendingCut] = [pendingCut, null];
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) return void client.write(chunk);
      held = Buffer.concat([held, chunk]);
      const text = held.toString('latin1');
      const headersEnd = text.indexOf('\r\n\r\n');
      if (headersEnd < 0) return;
      if (cut === 'after-headers') {
        client.end(held.subarray(0, headersEnd + 4), drop);
      } else if (/event: deployment\ndata: .*\n\n/.test(text.slice(headersEnd))) {
        client.write(held);
        cut = null;
        held = Buffer.alloc(0);
        setTimeout(drop, 100); // let the client read the event before the connection dies
      }
    });
    for (const s of [client, upstream]) {
      s.on('error', drop);
      s.on('close', () => {
        sockets.delete(s);
        drop();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    cutNextStream(when) {
      pendingCut = when;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('followDeployment and watchDeployment on the real control plane', () => {
  let relay: Relay;
  beforeAll(async () => {
    relay = await startRelay(url);
  });
  afterAll(async () => {
    await relay?.close();
  });

  const client = (t = token, via = url) => new ApiClient({ url: via, token: () => t });

  it('follows the stream of a running deployment to its end', async () => {
    const id = await apiDeploy('follow', { VERSION: 'f1' });
    const seen: string[] = [];
    const final = await followDeployment(client(), id, { onUpdate: (d) => seen.push(d.status) });
    expect(final.status, final.error ?? '').toBe('succeeded');
    expect(final).toEqual(await get(`/v1/deployments/${id}`));
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe('succeeded');
  });

  it('fails at once with the API error for a refusal: an unknown deployment, a bad token', async () => {
    await expect(followDeployment(client(), 'dep_nope')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'deployment "dep_nope" not found', status: 404 });
    await expect(followDeployment(client('wrong'), goodDep)).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('re-reads and reconnects when the stream drops mid-deployment', async () => {
    const id = await apiDeploy('drop', { VERSION: 'd1', STARTUP_DELAY_MS: '1500' });
    relay.requests.length = 0;
    relay.cutNextStream('after-first-event');
    const seen: string[] = [];
    const final = await followDeployment(client(token, relay.url), id, { backoffMs: { first: 10, max: 10 }, onUpdate: (d) => seen.push(d.status) });
    expect(final.status, final.error ?? '').toBe('succeeded');
    const path = `/v1/deployments/${id}`;
    expect(relay.requests.slice(0, 3)).toEqual([`${path}/stream`, path, `${path}/stream`]);
    expect(seen[0]).not.toBe('succeeded'); // the first event came before the drop
  });

  it('stops when the re-read after a drop finds the deployment already terminal', async () => {
    relay.requests.length = 0;
    relay.cutNextStream('after-headers');
    const final = await followDeployment(client(token, relay.url), badDep, { backoffMs: { first: 10, max: 10 } });
    expect(final).toEqual(await get(`/v1/deployments/${badDep}`));
    expect(final.status).toBe('rolled_back');
    expect(relay.requests).toEqual([`/v1/deployments/${badDep}/stream`, `/v1/deployments/${badDep}`]);
  });

  it('stops on abort', async () => {
    const id = await apiDeploy('abort', { VERSION: 'a1', STARTUP_DELAY_MS: '1500' });
    const controller = new AbortController();
    const watching = followDeployment(client(), id, { signal: controller.signal, onUpdate: () => controller.abort() });
    await expect(watching).rejects.toMatchObject({ name: 'AbortError' });
    expect((await h.api.finished(id)).status).toBe('succeeded');
  });

  it('watchDeployment prints the header, phases and outcome, or only the final JSON', async () => {
    const lines: string[] = [];
    const final = await watchDeployment(client(), goodDep, { write: (l) => lines.push(l), runningAfterMs: 0 });
    expect(lines[0]).toBe(`deploy ${goodDep} on ${envId}`);
    expect(lines.slice(1, -1)).toEqual(final.phases.map((p) => expect.stringMatching(new RegExp(`^  [✓–] ${p.name}\\b`))));
    expect(lines.at(-1)).toMatch(/^succeeded in \d/);
    const json: string[] = [];
    await watchDeployment(client(), goodDep, { json: true, write: (l) => json.push(l) });
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0]!)).toEqual(await get(`/v1/deployments/${goodDep}`));
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
