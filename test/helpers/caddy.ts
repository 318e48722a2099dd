/**
 * A real Caddy (Debian's `caddy`) for the edge tests, started by the test and stopped by it:
 * admin API, HTTP and HTTPS listeners all on 127.0.0.1 ports found free outside the kernel's
 * ephemeral range (the listeners are bound only with denv's first route, and a restart binds all
 * three again: free-port.ts), its data and config dirs (local CA, autosave) in a temp dir, and no
 * way to reach an outside ACME server:
 *   - `apps.tls.automation.policies` starts with one catch-all policy whose only issuer is an
 *     ACME directory on 127.0.0.1 where nothing listens, so a name denv forgot to give the
 *     internal issuer (or a tls auto route) fails on loopback instead of calling Let's Encrypt
 *     or ZeroSSL; `acmeOutsideAttempts()` checks the log for any other ACME host;
 *   - the local CA's install_trust is false, so Caddy (running as root) never touches the
 *     host's trust store.
 * Missing `caddy` fails the test with the install command; nothing is skipped.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess, waitUntilServing } from './daemon.js';
import { freeLoopbackPort, lateBoundPort } from './free-port.js';

export { freeLoopbackPort };

export interface TestCaddy {
  readonly adminUrl: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly dataDir: string;
  /** Everything Caddy logged so far. */
  log(): string;
  /** PEM of Caddy's local root CA (exists once it issued an internal certificate). */
  rootCa(): string;
  /** Log lines of ACME requests to anything but the loopback trap directory (should be none). */
  acmeOutsideAttempts(): string[];
  stop(): Promise<void>;
}

/** `same`: start on the ports of a Caddy that was stopped (a restart, as far as its clients can tell), with an empty config. */
export async function startCaddy(same?: Pick<TestCaddy, 'adminUrl' | 'httpPort' | 'httpsPort'>): Promise<TestCaddy> {
  const dir = mkdtempSync(join(tmpdir(), 'denv-caddy-'));
  const [admin, httpPort, httpsPort, acmeTrap] = same
    ? [Number(new URL(same.adminUrl).port), same.httpPort, same.httpsPort, await freeLoopbackPort()]
    : [await lateBoundPort(), await lateBoundPort(), await lateBoundPort(), await freeLoopbackPort()];
  const trapDirectory = `http://127.0.0.1:${acmeTrap}/directory`;
  const boot = {
    admin: { listen: `127.0.0.1:${admin}`, config: { persist: false } },
    apps: {
      pki: { certificate_authorities: { local: { install_trust: false } } },
      tls: { automation: { policies: [{ issuers: [{ module: 'acme', ca: trapDirectory }] }] } },
    },
  };
  const configFile = join(dir, 'boot.json');
  writeFileSync(configFile, JSON.stringify(boot));
  const dataDir = join(dir, 'data');
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: dataDir, XDG_CONFIG_HOME: join(dir, 'config') };
  const proc = spawn('caddy', ['run', '--config', configFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const adminUrl = `http://127.0.0.1:${admin}`;
  await waitUntilServing(proc, {
    what: `caddy (admin API at ${adminUrl})`,
    missing: 'caddy is not installed: apt-get install -y caddy (the edge tests need the real Caddy)',
    probe: async () => (await fetch(`${adminUrl}/config/`, { signal: AbortSignal.timeout(1000) })).ok,
    output: () => out,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  return {
    adminUrl,
    httpPort,
    httpsPort,
    dataDir,
    log: () => out,
    rootCa: () => readFileSync(join(dataDir, 'caddy', 'pki', 'authorities', 'local', 'root.crt'), 'utf8'),
    acmeOutsideAttempts: () =>
      out.split('\n').filter((l) => /acme|directory|eab/i.test(l) && /https?:\/\/(?!127\.0\.0\.1[:/])[a-z0-9.-]+/i.test(l) && !l.includes(trapDirectory)),
    async stop() {
      await stopProcess(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}



/**
 * A call to Caddy's admin API on a connection of its own (Caddy closes admin connections when it
 * loads a config, so a pooled fetch connection can fail the next call).
 */
export async function adminCall(caddy: TestCaddy, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const url = new URL(caddy.adminUrl + path);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const a = await answer(http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent: false, timeout: 5000, headers: payload ? { 'content-type': 'application/json' } : {} }).end(payload));
  return { status: a.status, json: a.body ? JSON.parse(a.body) : null };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** GET http://127.0.0.1:<port><path> with `Host: <host>`, on a fresh connection. */
export function httpGet(port: number, host: string, path = '/'): Promise<Answer> {
  return answer(http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false, timeout: 5000 }));
}

/** GET https://<servername>:<port><path> connecting to 127.0.0.1 (like curl --resolve), trusting only `ca` (default: the system's CAs). */
export function httpsGet(port: number, servername: string, ca?: string, path = '/'): Promise<Answer> {
  return answer(https.get({ host: '127.0.0.1', port, path, servername, ...(ca ? { ca } : {}), headers: { host: servername }, agent: false, timeout: 5000 }));
}

function answer(req: http.ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out after 5 s')));
    req.on('error', reject);
  });
}
