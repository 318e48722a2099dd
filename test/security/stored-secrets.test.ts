/**
 * Secrets are stored hashed (docs/security.md): API tokens, the admin token, enrollment keys and
 * host credentials are kept in the database as the SHA-256 hex of the secret, never in clear. The
 * control plane runs on the PostgreSQL server so this file reads what it actually stored.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/contracts/protocol.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api } from '../helpers/api.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const FACTS = { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** One hello with an enrollment key over a real socket: the host id and credential it is given. */
async function enroll(cp: ControlPlane, key: string): Promise<{ host_id: string; credential: string }> {
  const ws = new WebSocket(`${cp.url.replace('http', 'ws')}/agent/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answer = new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name: 'hashed-host', enrollment_key: key, facts: FACTS }));
  const welcome = await answer;
  ws.close();
  expect(welcome.type, JSON.stringify(welcome)).toBe('welcome');
  return { host_id: welcome.host_id, credential: welcome.credential };
}

describe('secrets at rest', () => {
  let cp: ControlPlane;
  let db: pg.Client;
  beforeAll(async () => {
    const store = await storeOptions('postgres', join(freshDataDir(), 'cp'));
    cp = await startControlPlane({ port: 0, ...store, log: () => {} });
    db = new pg.Client({ connectionString: store.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await cp?.close();
  });

  it('tokens, enrollment keys and host credentials are stored as the SHA-256 hex of the secret, and no table holds a secret in clear', async () => {
    const admin = new Api(cp.url, cp.adminToken);
    const token = await admin.post('/v1/tokens', { name: 'ci', scope: 'deploy' });
    expect(token.status).toBe(201);
    const key = await admin.post('/v1/enrollment-keys', { name: 'rack-1', single_use: false });
    expect(key.status).toBe(201);
    const host = await enroll(cp, key.body.key);

    const one = async (sql: string, id: string) => ((await db.query(sql, [id])).rows[0] as { hash: string } | undefined)?.hash;
    const stored = {
      token: await one('select hash from api_tokens where id = $1', token.body.id),
      admin: (await db.query("select hash from api_tokens where admin and name = 'admin'")).rows.map((r) => r.hash as string),
      key: await one('select hash from enrollment_keys where id = $1', key.body.id),
      credential: await one('select credential_hash as hash from hosts where id = $1', host.host_id),
    };
    expect(stored).toEqual({
      token: sha256(token.body.token),
      admin: [sha256(cp.adminToken)],
      key: sha256(key.body.key),
      credential: sha256(host.credential),
    });
    for (const hash of [stored.token, stored.key, stored.credential, ...stored.admin]) expect(hash).toMatch(/^[0-9a-f]{64}$/);

    // No row of any table carries a secret in clear (nor in any other column).
    const secrets = [token.body.token, cp.adminToken, key.body.key, host.credential];
    const tables = (await db.query("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'")).rows.map((r) => r.table_name as string);
    expect(tables).toEqual(expect.arrayContaining(['api_tokens', 'enrollment_keys', 'hosts']));
    for (const table of tables) {
      const rows = (await db.query(`select row_to_json(t)::text as row from "${table}" t`)).rows.map((r) => r.row as string);
      for (const secret of secrets) expect(rows.filter((r) => r.includes(secret)), `${table} holds a secret`).toEqual([]);
    }

    // And each hash is what authentication looks up: the secrets work, their hashes do not.
    expect((await new Api(cp.url, token.body.token).get('/v1/envs')).status).toBe(200);
    expect((await new Api(cp.url, stored.token!).get('/v1/envs')).status).toBe(401);
  });
});
