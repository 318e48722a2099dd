/**
 * `denv edge …` end to end: the built executable (`node bin/denv`, a child process with its stdin
 * piped) against a real control plane. Secrets go in on stdin or in the environment, never on
 * the command line, and come out of no command's output; `denv edge show --json` is the API's
 * answer, redacted. Afterwards the store holds the secrets exactly as sent (line end dropped).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { openStore } from '../../src/control-plane/store/open-store.js';
import { readTeamEdge } from '../../src/control-plane/store/team-edge.js';
import { Api } from '../helpers/api.js';
import { DENV_BIN } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const PASSWORD = 'npm-secret-0a9d44';
const API_KEY = 'pdns-secret-e2f817';
const API_TOKEN = 'cf-secret-7b3c90';
const SECRETS = [PASSWORD, API_KEY, API_TOKEN];
/** Variables the CLI reads, cleared so the caller's shell cannot steer the child. */
const CLI_ENV = ['DENV_URL', 'DENV_PORT', 'DENV_DATA_DIR', 'DENV_TOKEN', 'DENV_NPMPLUS_PASSWORD', 'DENV_POWERDNS_API_KEY', 'DENV_CLOUDFLARE_API_TOKEN'];

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let cp: ControlPlane | undefined;
let opts: { dataDir: string; databaseUrl?: string };
let api: Api;
/** Everything every run printed, checked for secrets at the end. */
const printed: string[] = [];

/** `denv --url <cp> --token <admin> <args>` with `stdin` written to its stdin. */
function denv(args: readonly string[], o: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env = { ...process.env, ...o.env };
  for (const k of CLI_ENV) if (!o.env?.[k]) delete env[k];
  const child = spawn(process.execPath, [DENV_BIN, '--url', api.url, '--token', api.token, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(o.stdin ?? '');
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const run = { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
      printed.push(run.stdout, run.stderr);
      resolve(run);
    });
  });
}

beforeAll(async () => {
  opts = await storeOptions('pglite', join(freshDataDir(), 'cp'));
  cp = await startControlPlane({ port: 0, ...opts, log: () => {} });
  api = new Api(cp.url, cp.adminToken);
});

afterAll(async () => {
  await cp?.close();
});

describe('denv edge', () => {
  it('show before anything is set prints dashes; --json the API answer', async () => {
    const text = await denv(['edge', 'show']);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^base domain: +—$/m);
    expect(text.stdout).toMatch(/^proxy: +—$/m);
    const json = await denv(['edge', '--json']); // show is the default
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual({ base_domain: null, proxy: null, dns: null, updated_at: null });
  });

  it('set-proxy npmplus takes the password on stdin and prints it redacted', async () => {
    const run = await denv(['edge', 'set-proxy', 'npmplus', '--npmplus-url', 'https://npm.example.com:81', '--email', 'admin@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^proxy: +npmplus url=https:\/\/npm\.example\.com:81 email=admin@example\.com password=\[redacted\]$/m);
  });

  it('set-dns powerdns takes the API key on stdin and keeps the proxy', async () => {
    const run = await denv(['edge', 'set-dns', 'powerdns', '--api-url', 'http://127.0.0.1:8081', '--zone', 'Example.com.', '--api-key-stdin', '--json'], { stdin: `${API_KEY}\r\n` });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const out = JSON.parse(run.stdout);
    expect(out.dns).toEqual({ provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: '[redacted]', zone: 'example.com' });
    expect(out.proxy).toMatchObject({ provider: 'npmplus', password: '[redacted]' });
  });

  it('show --json prints the settings with both secrets redacted, as GET /v1/edge answers them', async () => {
    const run = await denv(['edge', 'show', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const shown = JSON.parse(run.stdout);
    expect(shown).toEqual((await api.get('/v1/edge')).body);
    expect(shown).toMatchObject({
      proxy: { provider: 'npmplus', url: 'https://npm.example.com:81', email: 'admin@example.com', password: '[redacted]' },
      dns: { provider: 'powerdns', api_key: '[redacted]', zone: 'example.com' },
    });
  });

  it('a secret neither piped nor in the environment is a usage error naming both ways, and nothing changes', async () => {
    const before = (await api.get('/v1/edge')).body;
    const run = await denv(['edge', 'set-dns', 'cloudflare', '--zone-id', '023e105f4ecef8ad9ca31a8372d0c353']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error (USAGE): the Cloudflare API token is needed: pipe it with --api-token-stdin or set DENV_CLOUDFLARE_API_TOKEN (never as an argument: a command line shows in ps)\n');
    const empty = await denv(['edge', 'set-proxy', 'npmplus', '--npmplus-url', 'http://127.0.0.1:81', '--email', 'a@example.com', '--password-stdin'], { stdin: '\n' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^error \(USAGE\): the NPMplus password is needed: stdin \(--password-stdin\) was empty/);
    expect((await api.get('/v1/edge')).body).toEqual(before);
  });

  it('takes the Cloudflare token from DENV_CLOUDFLARE_API_TOKEN; refusals of the control plane print as errors', async () => {
    const run = await denv(['edge', 'set-dns', 'cloudflare', '--zone-id', '023e105f4ecef8ad9ca31a8372d0c353'], { env: { DENV_CLOUDFLARE_API_TOKEN: API_TOKEN } });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^dns: +cloudflare api_token=\[redacted\] zone_id=023e105f4ecef8ad9ca31a8372d0c353$/m);
    expect(run.stdout).toMatch(/^proxy: +npmplus /m);

    const bad = await denv(['edge', 'set-proxy', 'caddy', '--admin-url', 'ftp://127.0.0.1:2019']);
    expect(bad).toMatchObject({ code: 1, stdout: '', stderr: 'error (BAD_REQUEST): proxy.admin_url: expected an http:// or https:// URL\n' });
    const port = await denv(['edge', 'set-proxy', 'caddy', '--admin-url', 'http://127.0.0.1:2019', '--https-port', '70000']);
    expect(port.stderr).toBe('error (BAD_REQUEST): proxy.https_port: expected a port between 1 and 65535\n');
  });

  it('set-base-domain, clear, set-proxy none', async () => {
    const set = await denv(['edge', 'set-base-domain', 'apps.example.com']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^base domain: +apps\.example\.com$/m);
    const none = await denv(['edge', 'set-proxy', 'none', '--json']);
    expect(JSON.parse(none.stdout)).toMatchObject({ base_domain: 'apps.example.com', proxy: { provider: 'none' }, dns: { provider: 'cloudflare' } });
    const cleared = await denv(['edge', 'clear', 'base-domain', 'proxy', '--json']);
    expect(cleared).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(cleared.stdout)).toMatchObject({ base_domain: null, proxy: null, dns: { provider: 'cloudflare' } });
    const wrong = await denv(['edge', 'clear', 'colour']);
    expect(wrong).toMatchObject({ code: 1, stderr: 'error (USAGE): cannot clear "colour": expected base-domain, proxy or dns\n' });
  });

  it("set-base-domain and clear base-domain with --project change that project's own, not the team's", async () => {
    expect((await api.post('/v1/projects', { name: 'shop' })).status).toBe(201);
    const team = (await api.get('/v1/edge')).body;
    const set = await denv(['edge', 'set-base-domain', 'previews.example.net', '--project', 'shop']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^base domain: +previews\.example\.net$/m);
    expect(set.stdout).toMatch(/^hostnames: +<env>\.shop\.previews\.example\.net for envs other than production$/m);
    expect((await api.get('/v1/projects/shop')).body.base_domain).toBe('previews.example.net');
    expect((await api.get('/v1/edge')).body).toEqual(team);
    const cleared = await denv(['edge', 'clear', 'base-domain', '--project', 'shop', '--json']);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ name: 'shop', base_domain: null });
    const wrong = await denv(['edge', 'clear', 'proxy', '--project', 'shop']);
    expect(wrong).toMatchObject({ code: 1, stderr: "error (USAGE): --project clears only base-domain (proxy and dns are the team's)\n" });
    const missing = await denv(['edge', 'set-base-domain', 'x.example.net', '--project', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error \(NOT_FOUND\): /);
  });

  it('every command has --help with examples', async () => {
    for (const cmd of [['edge'], ['edge', 'show'], ['edge', 'set-proxy'], ['edge', 'set-proxy', 'caddy'], ['edge', 'set-proxy', 'npmplus'], ['edge', 'set-dns', 'powerdns'], ['edge', 'set-dns', 'cloudflare'], ['edge', 'set-base-domain'], ['edge', 'clear']]) {
      const run = await denv([...cmd, '--help']);
      expect(run.code, cmd.join(' ')).toBe(0);
      expect(run.stdout, cmd.join(' ')).toMatch(/\nExamples:\n {2}\$ denv edge /);
    }
    expect((await denv(['edge', 'set-proxy', 'npmplus', '--help'])).stdout).toContain('DENV_NPMPLUS_PASSWORD');
  });

  it('no output of any run carried a secret; the store holds them as sent', async () => {
    expect(printed.length).toBeGreaterThan(20);
    for (const secret of SECRETS) expect(printed.filter((p) => p.includes(secret))).toEqual([]);
    // Put the powerdns settings back so both secrets read from stdin are in the store.
    await denv(['edge', 'set-proxy', 'npmplus', '--npmplus-url', 'https://npm.example.com:81', '--email', 'admin@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` });
    await denv(['edge', 'set-dns', 'powerdns', '--api-url', 'http://127.0.0.1:8081', '--zone', 'example.com', '--api-key-stdin'], { stdin: API_KEY });
    const team = (await api.get('/v1/tokens')).body.items[0].team as string;
    await cp!.close();
    cp = undefined;
    const opened = await openStore({ ...opts, log: () => {} });
    try {
      const stored = await readTeamEdge(opened.db, team);
      expect(stored.proxy).toMatchObject({ provider: 'npmplus', password: PASSWORD });
      expect(stored.dns).toMatchObject({ provider: 'powerdns', api_key: API_KEY });
    } finally {
      await opened.close();
    }
    for (const secret of SECRETS) expect(printed.filter((p) => p.includes(secret))).toEqual([]);
  });
});
