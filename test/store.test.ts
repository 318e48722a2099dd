/** The store on both backends: migrations apply once, the data dir is locked against a second
 *  process, and a reopened store keeps its data and admin token; transactions and PostgreSQL errors
 *  behave alike on both; the embedded one (PGlite in a worker thread) keeps its one connection's
 *  order and serves the API's statements first. */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from '../src/control-plane/control-plane.js';
import { MIGRATIONS, migrate } from '../src/control-plane/store/migrations.js';
import { openStore } from '../src/control-plane/store/open-store.js';
import { openPGlite } from '../src/control-plane/store/pglite-db.js';
import { PGDATA_TEMPLATE } from '../src/control-plane/store/pglite-template.js';
import type { Db } from '../src/control-plane/store/db.js';
import { Api } from './helpers/api.js';
import { spawnDenv } from './helpers/processes.js';
import { freshDataDir, storeOptions, STORES } from './helpers/stores.js';

describe.each(STORES)('store on %s', (store) => {
  it('migrates once, and a re-run applies nothing', async () => {
    const opts = await storeOptions(store, freshDataDir());
    const s = await openStore(opts);
    try {
      const rows = await s.db.query<{ id: number }>('select id from schema_migrations order by id');
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      expect((await migrate(s.db)).applied).toEqual([]);
      const [row] = await s.db.query<{ id: number }>("insert into events (subject, type) values ('t', 't') returning id");
      expect(typeof row!.id).toBe('number'); // int8 as a number on both backends
    } finally {
      await s.close();
    }
  });

  it('numbers deployments already stored in the order the engine ran them by, (created_at, id), and new ones after them (migration 19)', async () => {
    const s = await openStore(await storeOptions(store, freshDataDir()));
    try {
      const seqMigration = MIGRATIONS.find((m) => m.name === 'deployment-seq')!;
      // As before migration 19: no seq. Inserted out of order; b and c tie on created_at.
      await s.db.exec('alter table deployments drop column seq');
      await s.db.query("insert into teams (id, name) values ('team_s', 's')");
      await s.db.query("insert into projects (id, team, name) values ('prj_s', 'team_s', 'shop')");
      await s.db.query("insert into envs (id, team, project, name, stage, status) values ('env_s', 'team_s', 'prj_s', 'e', 'preview', 'running')");
      const insert = "insert into deployments (id, team, env, kind, status, phases, created_at) values ($1, 'team_s', 'env_s', 'deploy', 'pending', '[]', $2)";
      for (const [id, at] of [['dep_c', '2026-01-02T00:00:00Z'], ['dep_a', '2026-01-03T00:00:00Z'], ['dep_b', '2026-01-02T00:00:00Z']]) await s.db.query(insert, [id, at]);
      await s.db.exec(seqMigration.sql);
      await s.db.query(insert, ['dep_0', '2026-01-01T00:00:00Z']);
      const rows = await s.db.query<{ id: string; seq: number }>('select id, seq from deployments order by seq');
      expect(rows).toEqual([{ id: 'dep_b', seq: 1 }, { id: 'dep_c', seq: 2 }, { id: 'dep_a', seq: 3 }, { id: 'dep_0', seq: 4 }]);
    } finally {
      await s.close();
    }
  });

  it('keeps data and the admin token across restarts; the token file is 0600', async () => {
    const opts = await storeOptions(store, freshDataDir());
    const cp1 = await startControlPlane({ port: 0, ...opts, log: () => {} });
    const token = cp1.adminToken;
    expect((await new Api(cp1.url, token).post('/v1/projects', { name: 'keep' })).status).toBe(201);
    await cp1.close();
    expect(readFileSync(join(opts.dataDir, 'admin-token'), 'utf8').trim()).toBe(token);
    expect(statSync(join(opts.dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    const cp2 = await startControlPlane({ port: 0, ...opts, log: () => {} });
    try {
      expect(cp2.adminToken).toBe(token);
      expect((await new Api(cp2.url, token).get('/v1/projects/keep')).status).toBe(200);
    } finally {
      await cp2.close();
    }
  });
});

describe.each(STORES)('transactions and errors on %s', (store) => {
  const withStore = async (fn: (db: Db) => Promise<void>) => {
    const s = await openStore(await storeOptions(store, freshDataDir()));
    try {
      await fn(s.db);
    } finally {
      await s.close();
    }
  };
  const teams = async (db: Db) => (await db.query<{ id: string }>("select id from teams where id like 'tx-%' order by id")).map((r) => r.id);

  it('commits when the function resolves, rolls back when it throws (a nested tx with the outer one)', async () => {
    await withStore(async (db) => {
      expect(await db.tx(async (tx) => {
        await tx.query("insert into teams (id, name) values ('tx-a', 'tx-a')");
        return 'out';
      })).toBe('out');
      await expect(db.tx(async (tx) => {
        await tx.query("insert into teams (id, name) values ('tx-b', 'tx-b')");
        await tx.tx(async (inner) => inner.query("insert into teams (id, name) values ('tx-c', 'tx-c')"));
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(await teams(db)).toEqual(['tx-a']);
    });
  });

  it('keeps the SQLSTATE and its fields on errors, in and out of transactions', async () => {
    await withStore(async (db) => {
      await db.query("insert into teams (id, name) values ('tx-a', 'tx-a')");
      const dup = await db.query("insert into teams (id, name) values ('tx-a', 'tx-a')").catch((e: unknown) => e);
      expect(dup).toBeInstanceOf(Error);
      expect(dup).toMatchObject({ code: '23505', constraint: 'teams_pkey', message: expect.stringMatching(/duplicate key/) });
      const inTx = await db.tx((tx) => tx.query('select * from no_such_table')).catch((e: unknown) => e);
      expect(inTx).toMatchObject({ code: '42P01' });
      // The failed transaction was rolled back: the connection takes statements again.
      expect(await teams(db)).toEqual(['tx-a']);
      await expect(db.exec('selec 1')).rejects.toMatchObject({ code: '42601' });
    });
  });

  it('returns PostgreSQL types as before: timestamptz as Date, int8 as number, jsonb as objects, null as null', async () => {
    await withStore(async (db) => {
      const [row] = await db.query<Record<string, unknown>>(
        "insert into events (subject, type, data) values ($1, 't', $2) returning id, at, data, team",
        ['s', JSON.stringify({ a: [1, 'x'] })],
      );
      expect(row).toMatchObject({ id: expect.any(Number), data: { a: [1, 'x'] }, team: null });
      expect(row!.at).toBeInstanceOf(Date);
    });
  });

  it('takes parameters as PostgreSQL reads them on both stores: an object into jsonb, a Date, a boolean, a string array, null', async () => {
    await withStore(async (db) => {
      const at = new Date('2026-01-02T03:04:05.678Z');
      const [row] = await db.query<Record<string, unknown>>(
        'select $1::jsonb as j, $2::timestamptz as t, $3::boolean as b, $4::text[] as a, $5::text as n, $6::int as i, $7::bigint as big',
        [{ k: ['v', 1], nested: { ok: true } }, at, false, ['x', 'y,z', 'q"r'], null, 42, 2 ** 40],
      );
      expect(row).toEqual({ j: { k: ['v', 1], nested: { ok: true } }, t: at, b: false, a: ['x', 'y,z', 'q"r'], n: null, i: 42, big: 2 ** 40 });
    });
  });

  it('statements sent together on a transaction (Promise.all) run in the order sent, one at a time on the connection; a failing one rolls back all of it', async () => {
    await withStore(async (db) => {
      // pg 8 warns (DeprecationWarning) when a query is made on a client already running one.
      const warnings: string[] = [];
      const onWarning = (w: Error) => void warnings.push(w.message);
      process.on('warning', onWarning);
      try {
        const [, , seen] = await db.tx((tx) =>
          Promise.all([
            tx.query("insert into teams (id, name) values ('tx-a', 'tx-a')"),
            tx.query("insert into teams (id, name) values ('tx-b', 'tx-b')"),
            tx.query<{ id: string }>("select id from teams where id like 'tx-%' order by id"),
          ]),
        );
        expect(seen.map((r) => r.id)).toEqual(['tx-a', 'tx-b']);
        const err = await db.tx((tx) =>
          Promise.all([
            tx.query("insert into teams (id, name) values ('tx-c', 'tx-c')"),
            tx.query("insert into teams (id, name) values ('tx-a', 'tx-a')"),
            tx.query("insert into teams (id, name) values ('tx-d', 'tx-d')"),
          ]),
        ).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: '23505' });
        expect(await teams(db)).toEqual(['tx-a', 'tx-b']);
        // Emitted on the next tick: give it one before reading.
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((m) => /already executing a query/.test(m))).toEqual([]);
      } finally {
        process.off('warning', onWarning);
      }
    });
  });

  it('a commit that fails (a deferred constraint) rejects the transaction with its SQLSTATE, and the next statement runs on its own', async () => {
    await withStore(async (db) => {
      await db.exec('create table tx_deferred (k int, constraint tx_deferred_k unique (k) deferrable initially deferred)');
      const err = await db.tx(async (tx) => {
        await tx.query('insert into tx_deferred values (1)');
        await tx.query('insert into tx_deferred values (1)'); // allowed until commit
        return 'not reached';
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '23505', constraint: 'tx_deferred_k' });
      expect(await db.query('select count(*)::int as n from tx_deferred')).toEqual([{ n: 0 }]);
      await db.query('insert into tx_deferred values (2)');
      expect(await db.query('select k from tx_deferred')).toEqual([{ k: 2 }]);
    });
  });
});

describe('embedded store in a worker thread', () => {
  const open = async (o: { restMaxWaitMs?: number } = {}) => {
    const dataDir = freshDataDir();
    await storeOptions('pglite', dataDir);
    return openPGlite(join(dataDir, 'pgdata'), o);
  };

  it('starts a new database as a copy of the template the build made, or with initdb when there is none; both migrated', async () => {
    expect(existsSync(join(PGDATA_TEMPLATE, 'PG_VERSION')), `${PGDATA_TEMPLATE}: npm run build makes it`).toBe(true);
    // initdb gives every cluster a random system identifier; a copy keeps its template's.
    const firstStart = async (template: string | null) => {
      const db = await openPGlite(join(freshDataDir(), 'pgdata'), { template });
      try {
        await migrate(db);
        const [control] = await db.query<{ id: string }>('select system_identifier::text as id from pg_control_system()');
        const migrations = await db.query<{ id: number }>('select id from schema_migrations order by id');
        return { id: control!.id, migrations: migrations.map((m) => m.id) };
      } finally {
        await db.close();
      }
    };
    const [copyA, copyB, initdb] = [await firstStart(PGDATA_TEMPLATE), await firstStart(PGDATA_TEMPLATE), await firstStart(null)];
    expect(copyB.id).toBe(copyA.id);
    expect(initdb.id).not.toBe(copyA.id);
    for (const s of [copyA, copyB, initdb]) expect(s.migrations).toEqual(MIGRATIONS.map((m) => m.id));
  });

  it('runs what arrives during a transaction after it, in order, as one connection does', async () => {
    const db = await open();
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const order: string[] = [];
      const tx = db.tx(async (t) => {
        await t.query("insert into teams (id, name) values ('tx-held', 'tx-held')");
        await held;
        order.push('commit');
      });
      await new Promise((r) => setTimeout(r, 20)); // the transaction is open
      const during = db.query<{ n: number }>("select count(*)::int as n from teams where id = 'tx-held'").then((rows) => {
        order.push('read');
        return rows[0]!.n;
      });
      const second = db.tx(async (t) => t.query("insert into teams (id, name) values ('tx-next', 'tx-next')")).then(() => order.push('second tx'));
      await new Promise((r) => setTimeout(r, 50));
      expect(order).toEqual([]); // nothing ran while the transaction was open
      release();
      await Promise.all([tx, second]);
      expect(await during).toBe(1); // it saw the committed row
      expect(order).toEqual(['commit', 'read', 'second tx']);
    } finally {
      await db.close();
    }
  });

  it('serves the statements of a servedFirst() handle before background ones already waiting', async () => {
    // Background work waiting longer than restMaxWaitMs goes first (the next test): not here.
    const db = await open({ restMaxWaitMs: 60_000 });
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const tx = db.tx(async () => held);
      await new Promise((r) => setTimeout(r, 20));
      const order: string[] = [];
      const background = Array.from({ length: 10 }, (_, i) => db.query('select $1::int as i', [i]).then(() => order.push(`bg${i}`)));
      const api = db.servedFirst().query('select 1').then(() => order.push('api'));
      release();
      await Promise.all([tx, api, ...background]);
      expect(order[0]).toBe('api');
      expect(order.slice(1)).toEqual(Array.from({ length: 10 }, (_, i) => `bg${i}`));
    } finally {
      await db.close();
    }
  });

  it('never starves background work: under an API that keeps the first lane full, a background statement still runs', async () => {
    const db = await open();
    let flooding = true;
    let served = 0;
    // 8 API clients each sending its next statement the moment the last one answers: the first
    // lane is never empty (2 posted to the worker, 6 waiting).
    const flood = Array.from({ length: 8 }, async () => {
      while (flooding) {
        await db.servedFirst().query('select 1');
        served++;
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 50));
      const before = served;
      const started = Date.now();
      const background = await Promise.race([db.query<{ n: number }>('select 2 as n'), new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
      expect(background, 'the background statement never ran').toEqual([{ n: 2 }]);
      // It went ahead once it had waited its turn (100 ms), not when the flood stopped.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(served).toBeGreaterThan(before);
    } finally {
      flooding = false;
      await Promise.all(flood);
      await db.close();
    }
  });

  it('creates and migrates a missing database in a separate process, leaving no half-made dir; a closed store refuses statements', async () => {
    const dir = join(freshDataDir(), 'pgdata');
    const db = await openPGlite(dir);
    try {
      const rows = await db.query<{ id: number }>('select id from schema_migrations order by id');
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
      expect(existsSync(`${dir}.init`)).toBe(false);
    } finally {
      await db.close();
    }
    await expect(db.query('select 1')).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE', message: 'the embedded database is closed' });
  });

  it('refuses a dir that holds files but no database rather than initialising over them', async () => {
    const dir = join(freshDataDir(), 'pgdata');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await expect(openPGlite(dir)).rejects.toThrow(/holds files but no database/);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('data dir lock', () => {
  it('refuses a second control plane on the same data dir with a clear error, in-process and from another process', async () => {
    const opts = await storeOptions('pglite', freshDataDir());
    const cp = await startControlPlane({ port: 0, ...opts, log: () => {} });
    try {
      await expect(startControlPlane({ port: 0, ...opts, log: () => {} })).rejects.toThrow(/in use by another denv process/);
      const second = spawnDenv(['server', '--port', '0', '--data-dir', opts.dataDir]);
      const code = await new Promise<number | null>((r) => second.proc.once('exit', (c) => r(c)));
      expect(code).not.toBe(0);
      expect(second.output()).toMatch(/error \(STORE_LOCKED\): the data dir .* is in use by another denv process/);
      // the first one still works
      expect((await new Api(cp.url, cp.adminToken).get('/v1/projects')).status).toBe(200);
    } finally {
      await cp.close();
    }
  });
});
