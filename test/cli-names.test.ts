/**
 * CLI parity with the API (issue 9, point 6), end to end: the built `denv` executable against a
 * real control plane and a real agent process (test/helpers/harness.ts).
 * - envs addressed as `<project>/<env>` or by a name unique across projects, on every env command;
 *   an unknown name and an ambiguous one are clear errors; `GET /v1/envs?project=&name=` under it;
 * - `denv env versions <env>` (table and --json);
 * - `denv deploy --target host=<id or name>` and its usage error;
 * - `denv dev --ports` reaching the local agent, and the banner naming the local host.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Version } from '../src/contracts/domain.js';
import { killServiceProcesses, startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv, testPortRange, type Child } from './helpers/processes.js';
import { freshDataDir, seedPGlite } from './helpers/stores.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const CLI_ENV = ['DENV_URL', 'DENV_PORT', 'DENV_DATA_DIR', 'DENV_TOKEN', 'DENV_PROJECT'] as const;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let h: Harness;
let dir = '';
const savedEnv: Record<string, string | undefined> = {};

function denv(args: readonly string[]): Promise<Run> {
  const child = spawnDenv(args);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.proc.stdout!.on('data', (d: Buffer) => out.push(d));
  child.proc.stderr!.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) => {
    child.proc.once('error', reject);
    child.proc.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}
const cli = (...args: string[]) => denv(['--url', h.cp.url, '--token', h.cp.adminToken, ...args]);

async function get<T = any>(p: string): Promise<T> {
  const res = await h.api.get<T>(p);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A Compose file of one process service (the fixture app, by absolute path) printing VERSION. */
function composeFile(name: string, version: string): string {
  const file = join(dir, name);
  writeFileSync(file, `services:\n  web:\n    command: [node, ${JSON.stringify(FIXTURE)}]\n    environment:\n      VERSION: ${version}\n    x-denv:\n      health: {path: /healthz, timeout: 10s}\n`);
  return file;
}

beforeAll(async () => {
  for (const k of CLI_ENV) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  h = await startHarness();
  dir = freshDataDir('denv-cli-names-');
});

afterAll(async () => {
  await h?.close();
  for (const k of CLI_ENV) if (savedEnv[k] !== undefined) process.env[k] = savedEnv[k];
});

// The tests below run in order on one control plane.
let shopProd = '';
let blogProd = '';

describe('envs and projects by name', () => {
  it('deploy --target host=<name> and host=<id> place on that host; a bad --target is a usage error naming the forms', async () => {
    const [byName, byId, bad] = await Promise.all([
      cli('deploy', '-f', composeFile('shop.yaml', 's1'), '--project', 'shop', '--target', 'host=test-host', '--watch', '--json'),
      cli('deploy', '-f', composeFile('blog.yaml', 'b1'), '--project', 'blog', '--target', `host=${h.hostId}`, '--watch', '--json'),
      cli('deploy', '-f', composeFile('x.yaml', 'x'), '--project', 'shop', '--target', 'region=eu'),
    ]);
    for (const r of [byName, byId]) expect(r.code, r.stdout + r.stderr).toBe(0);
    const [d1, d2] = [byName, byId].map((r) => JSON.parse(r.stdout) as Deployment);
    shopProd = d1!.env;
    blogProd = d2!.env;
    for (const d of [d1!, d2!]) expect(d.phases.find((p) => p.name === 'place')!.evidence).toMatchObject({ host: h.hostId, reason: 'target host requested' });
    expect(bad).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^error \(USAGE\): option '--target <target>' argument 'region=eu' is invalid\. expected host=<host id or name>, cloud=<cloud name> or aws_account=<account name>, got "region=eu"\n/) });

    // An unknown host is the deployment's own failure at place, not a CLI error.
    const nowhere = await cli('deploy', '-f', composeFile('shop.yaml', 's1'), '--project', 'shop', '--env', 'nowhere', '--target', 'host=no-such-host', '--watch');
    expect(nowhere.code, nowhere.stdout).toBe(1);
    expect(nowhere.stdout).toMatch(/no host "no-such-host" in this team/);
  });

  it('GET /v1/envs filters by project (id or name) and env name, and refuses unknown query keys', async () => {
    const shop = await get(`/v1/projects/shop`);
    expect((await get('/v1/envs?project=shop&name=production')).items.map((e: Env) => e.id)).toEqual([shopProd]);
    expect((await get(`/v1/envs?project=${shop.id}&name=production`)).items.map((e: Env) => e.id)).toEqual([shopProd]);
    expect((await get('/v1/envs?name=production')).items.map((e: Env) => e.id).sort()).toEqual([shopProd, blogProd].sort());
    expect((await get('/v1/envs?project=nope')).items).toEqual([]);
    const bad = await h.api.get('/v1/envs?projekt=shop');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
  });

  it('env commands take <project>/<env> and a name unique across projects, and give what the id gives', async () => {
    const [show, showById, status, nowhere, versions, deps, events] = await Promise.all([
      cli('env', 'show', 'shop/production', '--json'),
      cli('env', 'show', shopProd, '--json'),
      cli('env', 'status', 'blog/production', '--json'),
      cli('env', 'show', 'nowhere', '--json'), // only shop has an env named "nowhere" (failed at place)
      cli('env', 'versions', 'shop/production', '--json'),
      cli('deployments', '--env', 'shop/production', '--json'),
      cli('events', '--subject', 'env:blog/production', '--json'),
    ]);
    for (const r of [show, showById, status, nowhere, versions, deps, events]) expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(show.stdout)).toEqual(await get(`/v1/envs/${shopProd}`));
    expect(JSON.parse(showById.stdout)).toEqual(JSON.parse(show.stdout));
    expect(JSON.parse(status.stdout)).toBeTypeOf('object');
    expect(JSON.parse(nowhere.stdout)).toMatchObject({ name: 'nowhere', project: (await get('/v1/projects/shop')).id });
    expect(JSON.parse(versions.stdout)).toEqual(await get(`/v1/envs/${shopProd}/versions`));
    expect(JSON.parse(deps.stdout)).toEqual(await get(`/v1/deployments?env=${shopProd}`));
    expect(JSON.parse(events.stdout)).toEqual(await get(`/v1/events?subject=env:${blogProd}`));
  });

  it('an unknown env or project, an ambiguous bare name, and a malformed name are clear errors', async () => {
    const [noEnv, noProject, ambiguous, malformed, noName] = await Promise.all([
      cli('env', 'status', 'shop/staging'),
      cli('env', 'show', 'nope/production'),
      cli('env', 'show', 'production'),
      cli('env', 'versions', 'a/b/c'),
      cli('env', 'stop', 'staging'),
    ]);
    expect(noEnv).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): no env "staging" in project "shop"\n' });
    expect(noProject).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): project "nope" not found\n' });
    expect(ambiguous).toEqual({
      code: 1,
      stdout: '',
      stderr: `error (AMBIGUOUS): env "production" exists in 2 projects: blog/production (${blogProd}), shop/production (${shopProd}); name one as <project>/<env>\n`,
    });
    expect(malformed).toEqual({ code: 1, stdout: '', stderr: 'error (USAGE): "a/b/c" names no env: expected an env id (env_…), <project>/<env>, or an env name\n' });
    expect(noName).toEqual({ code: 1, stdout: '', stderr: 'error (NOT_FOUND): no env "staging" in any project\n' });
  });

  it('env versions lists number, id, healthy, snapshot, created, the current one marked; a lifecycle action takes a name', async () => {
    const again = await cli('deploy', '-f', composeFile('shop.yaml', 's2'), '--project', 'shop', '--watch');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const table = await cli('env', 'versions', 'shop/production');
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const items = (await get(`/v1/envs/${shopProd}/versions`)).items as Version[];
    const current = (await get<Env>(`/v1/envs/${shopProd}`)).current_version;
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NUMBER\s+ID\s+HEALTHY\s+SNAPSHOT\s+CREATED$/);
    expect(lines).toHaveLength(items.length + 1);
    items.forEach((v, i) => {
      const mark = v.id === current ? ' \\*' : '';
      expect(lines[i + 1]).toMatch(new RegExp(`^${v.number}${mark}\\s+${v.id}\\s+${v.healthy ? 'yes' : 'no'}\\s+${v.snapshot ?? '—'}\\s+\\d+s ago$`));
    });
    expect(lines.filter((l) => / \* /.test(l))).toHaveLength(1);

    const stop = await cli('env', 'stop', 'blog/production', '--watch');
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    expect((await get<Env>(`/v1/envs/${blogProd}`)).status).toBe('stopped');
  });

  it('every env command says in --help which names it takes, and env versions has examples', async () => {
    const helps = await Promise.all(['show', 'status', 'logs', 'metrics', 'versions', 'snapshots', 'fork', 'snapshot', 'rollback', 'verify', 'destroy', 'stop', 'plan', 'delete-record'].map((c) => cli('env', c, '--help')));
    for (const r of helps) {
      expect(r.code).toBe(0);
      expect(r.stdout.replace(/\s+/g, ' ')).toContain('environment: id (env_…), <project>/<env>, or a name unique across projects');
      expect(r.stdout).toMatch(/Examples:\n {2}\$ denv env /);
    }
    const deployHelp = await cli('deploy', '--help');
    expect(deployHelp.stdout).toContain('--target <target>');
    expect(deployHelp.stdout.replace(/\s+/g, ' ')).toContain('host=<host id or name>, cloud=<cloud name> or aws_account=<account name>');
  });
});

describe('denv dev', () => {
  let dev: Child | null = null;
  let devAgentDir = '';
  afterAll(async () => {
    await dev?.kill('SIGTERM');
    if (devAgentDir) killServiceProcesses(devAgentDir); // services outlive their agent by design
  });

  it('hands --ports to its local agent and names the local host in its banner', async () => {
    const dataDir = join(freshDataDir('denv-dev-ports-'), 'dev');
    seedPGlite(dataDir);
    devAgentDir = join(dataDir, 'agent');
    const config = join(dir, 'agent.yaml');
    // The CLI makes the Compose file's directory the service's working_dir: allow it, as a user would.
    writeFileSync(config, `name: cli-names-box\nallow: {paths: [${JSON.stringify(dir)}]}\n`);
    const ports = testPortRange();
    const [min, max] = ports.split('-').map(Number) as [number, number];
    dev = spawnDenv(['dev', '--port', '0', '--data-dir', dataDir, '--no-example', '--agent-config', config, '--ports', ports]);
    const banner = await dev.waitForOutput(/ {2}host: .*\n/, 120_000);
    const url = /control plane listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const hostId = /\((host_\w+); signed envelopes bind to this name\)/.exec(banner)?.[1];
    expect(banner, dev.output()).toBe(`  host: cli-names-box  (${hostId}; signed envelopes bind to this name)\n`);

    const run = await denv(['--url', url, '--data-dir', dataDir, 'deploy', '-f', composeFile('dev.yaml', 'd1'), '--project', 'dev', '--watch', '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const envId = (JSON.parse(run.stdout) as Deployment).env;
    const show = await denv(['--url', url, '--data-dir', dataDir, 'env', 'show', 'dev/production', '--json']);
    expect(show.code, show.stderr).toBe(0);
    const env = JSON.parse(show.stdout) as Env;
    expect(env.id).toBe(envId);
    expect(env.host).toBe(hostId);
    const port = Number(new URL(env.endpoints[0]!.url).port);
    expect(port).toBeGreaterThanOrEqual(min);
    expect(port).toBeLessThanOrEqual(max);
    expect(await (await fetch(env.endpoints[0]!.url)).text()).toMatch(/^d1 \d+$/);
  }, 180_000);

  it('refuses a malformed --ports before starting anything', async () => {
    const run = await denv(['dev', '--port', '0', '--data-dir', join(dir, 'never'), '--ports', '80-90']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^error \(USAGE\): option '--ports <min-max>' argument '80-90' is invalid\. expected a range such as 20000-29999 within 1024-65535\n/) });
  });
});
