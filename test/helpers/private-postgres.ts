/**
 * A PostgreSQL 15 server of a test's own (Debian's binaries, its own data dir and port), so a
 * fault test can stop and start it without touching the suite's shared server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/lib/exec.js';
import { waitFor } from './api.js';
import { lateBoundPort } from './free-port.js';
import { freshDataDir } from './stores.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';

export class PrivatePostgres {
  private proc: ChildProcess | null = null;

  private constructor(
    private readonly pgdata: string,
    readonly port: number,
    private readonly uid: number,
    private readonly gid: number,
  ) {}

  /** initdb (trust auth, no fsync) and start it. */
  static async create(): Promise<PrivatePostgres> {
    const uid = Number((await run(['id', '-u', 'postgres'])).stdout.trim());
    const gid = Number((await run(['id', '-g', 'postgres'])).stdout.trim());
    const pgdata = join(freshDataDir('denv-pg-'), 'pgdata');
    mkdirSync(pgdata, { mode: 0o700 });
    chownSync(pgdata, uid, gid);
    const init = await run(['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', `${PG_BIN}/initdb`, '-D', pgdata, '-U', 'postgres', '--auth=trust', '--no-sync'], { timeoutMs: 60_000 });
    if (init.exitCode !== 0) throw new Error(`initdb: ${init.stderr}`);
    const pg = new PrivatePostgres(pgdata, await lateBoundPort(), uid, gid);
    await pg.start();
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get running(): boolean {
    return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Start it; resolves once it accepts connections. */
  async start(): Promise<void> {
    this.proc = spawn(`${PG_BIN}/postgres`, ['-D', this.pgdata, '-p', String(this.port), '-h', '127.0.0.1', '-k', '', '-c', 'fsync=off'], { uid: this.uid, gid: this.gid, stdio: 'ignore' });
    await waitFor(async () => (await run([`${PG_BIN}/pg_isready`, '-h', '127.0.0.1', '-p', String(this.port)])).exitCode === 0, 20_000, 'PostgreSQL to accept connections');
  }

  /** Fast shutdown (SIGINT): every session is ended (57P01), as in a restart. */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || !this.running) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGINT');
    await exited;
  }
}
