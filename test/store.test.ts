/** The store on both backends: migrations apply once, the data dir is locked against a second
 *  process, and a reopened store keeps its data and admin token. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from '../src/control-plane/control-plane.js';
import { MIGRATIONS, migrate } from '../src/control-plane/store/migrations.js';
import { openStore } from '../src/control-plane/store/open-store.js';
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
