/**
 * A real PowerDNS Authoritative (Debian's `pdns-server` + `pdns-backend-sqlite3`) for the edge
 * tests, started and stopped by the test: a fresh sqlite database made from the package's schema
 * with the `sqlite3` CLI, DNS (UDP and TCP) and the API webserver on free 127.0.0.1 ports (lateBoundPort),
 * no syslog, no security polling (nothing leaves the machine). Missing binaries fail the test
 * with the install command; nothing is skipped.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { run } from '../../src/lib/exec.js';
import { lateBoundPort } from './free-port.js';
import { stopProcess, waitUntilServing } from './daemon.js';

const SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';
const INSTALL = 'apt-get install -y pdns-server pdns-backend-sqlite3 sqlite3';

export interface TestPowerDns {
  readonly apiUrl: string;
  readonly apiKey: string;
  /** The DNS port on 127.0.0.1 (UDP and TCP). */
  readonly dnsPort: number;
  log(): string;
  /** Create a Native zone (`example.test`) with an explicit SOA and NS, through the API. */
  createZone(zone: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startPowerDns(): Promise<TestPowerDns> {
  if (!existsSync(SCHEMA)) throw new Error(`${SCHEMA} is missing: ${INSTALL} (the edge tests need the real PowerDNS)`);
  const dir = mkdtempSync(join(tmpdir(), 'denv-pdns-'));
  const db = join(dir, 'pdns.sqlite3');
  const made = await run(['sqlite3', db], { input: readFileSync(SCHEMA), timeoutMs: 15_000 }).catch((err: Error) => err);
  if (made instanceof Error || made.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(made instanceof Error ? `sqlite3 could not run (${made.message}): ${INSTALL}` : `sqlite3 could not create the PowerDNS database: ${made.stderr}`);
  }
  // Outside the kernel's ephemeral range: a port found free by binding 0 can be handed to another
  // process before pdns_server binds it, and PowerDNS then runs on without its API (seen in a
  // loaded run: "Listening on HTTP socket failed: … Address already in use").
  const dnsPort = await lateBoundPort({ udp: true });
  const webPort = await lateBoundPort();
  const apiKey = randomBytes(16).toString('hex');
  writeFileSync(
    join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${db}`,
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      'daemon=no',
      'guardian=no',
      'disable-syslog=yes',
      `socket-dir=${dir}`,
      'write-pid=no',
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${webPort}`,
      'webserver-allow-from=127.0.0.0/8',
      'security-poll-suffix=',
      'default-soa-content=ns1.@ hostmaster.@ 1 10800 3600 604800 3600',
      '',
    ].join('\n'),
  );
  const proc = spawn('pdns_server', [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const apiUrl = `http://127.0.0.1:${webPort}`;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${apiUrl}${path}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  await waitUntilServing(proc, {
    what: 'pdns_server',
    missing: `pdns_server is not installed: ${INSTALL}`,
    probe: async () => (await api('GET', '/api/v1/servers/localhost')).ok,
    output: () => out,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  return {
    apiUrl,
    apiKey,
    dnsPort,
    log: () => out,
    async createZone(zone) {
      const name = zone.endsWith('.') ? zone : `${zone}.`;
      const res = await api('POST', '/api/v1/servers/localhost/zones', {
        name,
        kind: 'Native',
        nameservers: [],
        rrsets: [
          { name, type: 'SOA', ttl: 3600, records: [{ content: `ns1.${name} hostmaster.${name} 1 10800 3600 604800 3600`, disabled: false }] },
          { name, type: 'NS', ttl: 3600, records: [{ content: `ns1.${name}`, disabled: false }] },
        ],
      });
      if (res.status !== 201) throw new Error(`PowerDNS did not create zone ${name}: ${res.status} ${await res.text()}`);
    },
    async stop() {
      await stopProcess(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}


