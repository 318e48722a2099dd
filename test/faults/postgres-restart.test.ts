/**
 * Fault: the PostgreSQL server restarts under a running control plane (issue 11, item 2). Every
 * restart used to crash every control plane (an unhandled pool `error`, 57P01). Here a private
 * PostgreSQL 15 (Debian's binaries, its own data dir and port, so the suite's shared server is
 * untouched) is stopped and started again under a real control plane running in this process —
 * an unhandled error would end this test worker. Requests during the outage answer 503
 * DATABASE_UNAVAILABLE; afterwards the API works again, nothing written before is lost, and the
 * LISTEN connection is back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { run } from '../../src/lib/exec.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { freshDataDir } from '../helpers/stores.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('the database server restarts', () => {
  let pgdata = '';
  let port = 0;
  let uid = 0;
  let gid = 0;
  let postgres: ChildProcess | null = null;
  let cp: ControlPlane;
  const logs: string[] = [];

  const startPostgres = async () => {
    postgres = spawn(`${PG_BIN}/postgres`, ['-D', pgdata, '-p', String(port), '-h', '127.0.0.1', '-k', '', '-c', 'fsync=off'], { uid, gid, stdio: 'ignore' });
    await waitFor(async () => (await run([`${PG_BIN}/pg_isready`, '-h', '127.0.0.1', '-p', String(port)])).exitCode === 0, 20_000, 'PostgreSQL to accept connections');
  };
  const stopPostgres = async () => {
    const p = postgres!;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGINT'); // fast shutdown: every session is ended (57P01), as in a restart
    await exited;
  };

  beforeAll(async () => {
    uid = Number((await run(['id', '-u', 'postgres'])).stdout.trim());
    gid = Number((await run(['id', '-g', 'postgres'])).stdout.trim());
    pgdata = join(freshDataDir('denv-pg-restart-'), 'pgdata');
    mkdirSync(pgdata, { mode: 0o700 });
    chownSync(pgdata, uid, gid);
    const init = await run(['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', `${PG_BIN}/initdb`, '-D', pgdata, '-U', 'postgres', '--auth=trust', '--no-sync'], { timeoutMs: 60_000 });
    if (init.exitCode !== 0) throw new Error(`initdb: ${init.stderr}`);
    port = await freePort();
    await startPostgres();
    cp = await startControlPlane({ port: 0, dataDir: freshDataDir('denv-cp-'), databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, ...FAST_TIMINGS, log: (l) => logs.push(l) });
  }, 120_000);
  afterAll(async () => {
    await cp?.close();
    if (postgres && postgres.exitCode === null) await stopPostgres();
  });

  it('survives it: 503 during the outage, everything back afterwards, nothing lost', async () => {
    const api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'before' })).status).toBe(201);

    await stopPostgres();
    const during = await api.get('/v1/projects');
    expect(during.status).toBe(503);
    expect(during.body.error.code).toBe('DATABASE_UNAVAILABLE');
    expect(during.body.error.message).toMatch(/the database server cannot be reached/);

    await startPostgres();
    await waitFor(async () => (await api.get('/v1/projects')).status === 200, 20_000, 'the API to answer again');
    expect((await api.post('/v1/projects', { name: 'after' })).status).toBe(201);
    const names = (await api.get('/v1/projects')).body.items.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['before', 'after']));
    // The LISTEN connection was opened again (cross-replica routing resumes).
    await waitFor(() => logs.some((l) => l.includes('notifier: listening again')), 20_000, 'the notifier to listen again');
    expect(logs.some((l) => /idle connection ended|LISTEN connection ended/.test(l))).toBe(true);
  });
});
