/**
 * Fault: the PostgreSQL server restarts under a running control plane (issue 11, item 2). Every
 * restart used to crash every control plane (an unhandled pool `error`, 57P01). Here a private
 * PostgreSQL 15 (Debian's binaries, its own data dir and port, so the suite's shared server is
 * untouched) is stopped and started again under a real control plane running in this process —
 * an unhandled error would end this test worker. Requests during the outage answer 503
 * DATABASE_UNAVAILABLE; afterwards the API works again, nothing written before is lost, and the
 * LISTEN connection is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { freshDataDir } from '../helpers/stores.js';

describe('the database server restarts', () => {
  let pg: PrivatePostgres;
  let cp: ControlPlane;
  const logs: string[] = [];

  beforeAll(async () => {
    pg = await PrivatePostgres.create();
    cp = await startControlPlane({ port: 0, dataDir: freshDataDir('denv-cp-'), databaseUrl: pg.url, ...FAST_TIMINGS, log: (l) => logs.push(l) });
  }, 120_000);
  afterAll(async () => {
    await cp?.close();
    await pg?.stop();
  });

  it('survives it: 503 during the outage, everything back afterwards, nothing lost', async () => {
    const api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'before' })).status).toBe(201);

    await pg.stop();
    const during = await api.get('/v1/projects');
    expect(during.status).toBe(503);
    expect(during.body.error.code).toBe('DATABASE_UNAVAILABLE');
    expect(during.body.error.message).toMatch(/the database server cannot be reached/);

    await pg.start();
    await waitFor(async () => (await api.get('/v1/projects')).status === 200, 20_000, 'the API to answer again');
    expect((await api.post('/v1/projects', { name: 'after' })).status).toBe(201);
    const names = (await api.get('/v1/projects')).body.items.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['before', 'after']));
    // The LISTEN connection was opened again (cross-replica routing resumes).
    await waitFor(() => logs.some((l) => l.includes('notifier: listening again')), 20_000, 'the notifier to listen again');
    expect(logs.some((l) => /idle connection ended|LISTEN connection ended/.test(l))).toBe(true);
  });
});
