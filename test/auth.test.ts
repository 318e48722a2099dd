/**
 * Who a bearer token is (docs/security.md): the admin token a control plane writes on its first
 * start and reuses after, the Authorization header's one accepted form, revoked and expired tokens,
 * and the scope order read < deploy < admin. In-process on a fresh embedded store.
 */
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDenvError } from '../src/contracts/errors.js';
import { ensureAdminToken } from '../src/control-plane/admin-token.js';
import { authenticate, issueToken, scopeAllows } from '../src/control-plane/api/auth.js';
import { openStore, type OpenedStore } from '../src/control-plane/store/open-store.js';
import { freshDataDir, seedPGlite } from './helpers/stores.js';

const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as unknown as FastifyRequest;
const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => (isDenvError(err) ? `${err.code}: ${err.message}` : String(err)));

describe('auth', () => {
  let store: OpenedStore;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = freshDataDir();
    seedPGlite(dataDir);
    store = await openStore({ dataDir });
  });
  afterAll(async () => {
    await store.close();
  });

  it('writes the admin token on first start (0600, one line) and reuses it after, tightening the file', async () => {
    const file = join(dataDir, 'admin-token');
    const first = await ensureAdminToken(store.db, dataDir);
    expect(readFileSync(file, 'utf8')).toBe(`${first.token}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.token).toMatch(/^denv_[A-Za-z0-9_-]{32}$/);
    const teams = await store.db.query<{ id: string }>("select id from teams where name = 'default'");
    expect(teams.map((t) => t.id)).toEqual([first.team]);
    expect(await authenticate(store.db, request(`Bearer ${first.token}`))).toMatchObject({ team: first.team, admin: true, scope: 'admin' });

    chmodSync(file, 0o644); // as if written by hand
    const again = await ensureAdminToken(store.db, dataDir);
    expect(again).toEqual(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await store.db.query("select 1 from teams where name = 'default'")).toHaveLength(1);

    // A file whose token this database does not know (a new database): a new token replaces it.
    writeFileSync(file, 'denv_notknownhere\n');
    const fresh = await ensureAdminToken(store.db, dataDir);
    expect(fresh.team).toBe(first.team);
    expect(fresh.token).not.toBe(first.token);
    expect(readFileSync(file, 'utf8')).toBe(`${fresh.token}\n`);
    rmSync(file);
  });

  it('accepts exactly `Bearer <token>` and says what is wrong otherwise', async () => {
    const { team } = await ensureAdminToken(store.db, dataDir);
    const { token } = await issueToken(store.db, team, 'ci', false, { scope: 'deploy' });
    expect(await authenticate(store.db, request(`Bearer ${token}`))).toMatchObject({ team, admin: false, scope: 'deploy' });
    expect(await authenticate(store.db, request(`bearer ${token}`))).toMatchObject({ team });
    const missing = 'UNAUTHORIZED: missing bearer token (Authorization: Bearer <token>)';
    expect(await refusal(authenticate(store.db, request()))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`Token ${token}`)))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`xBearer ${token}`)))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`Bearer ${token} extra`)))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`Bearer${token}`)))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`Bearer ${'x'.repeat(513)}`)))).toBe(missing);
    expect(await refusal(authenticate(store.db, request(`Bearer ${token}x`)))).toBe('UNAUTHORIZED: unknown or revoked token');
  });

  it('refuses a revoked token and an expired one', async () => {
    const { team } = await ensureAdminToken(store.db, dataDir);
    const revoked = await issueToken(store.db, team, 'old', false);
    await store.db.query('update api_tokens set revoked_at = now() where id = $1', [revoked.id]);
    expect(await refusal(authenticate(store.db, request(`Bearer ${revoked.token}`)))).toBe('UNAUTHORIZED: unknown or revoked token');
    const expired = await issueToken(store.db, team, 'brief', false, { expiresInS: 0 });
    expect(await refusal(authenticate(store.db, request(`Bearer ${expired.token}`)))).toBe('UNAUTHORIZED: unknown or revoked token');
    const lasting = await issueToken(store.db, team, 'lasting', false, { expiresInS: 3600 });
    expect(Date.parse(lasting.expires_at!) - Date.now()).toBeGreaterThan(3500_000);
    expect(await authenticate(store.db, request(`Bearer ${lasting.token}`))).toMatchObject({ tokenId: lasting.id, scope: 'admin' });
  });

  it('orders scopes read < deploy < admin', () => {
    const scopes = ['read', 'deploy', 'admin'] as const;
    const allowed = scopes.map((has) => scopes.filter((needs) => scopeAllows(has, needs)));
    expect(allowed).toEqual([['read'], ['read', 'deploy'], ['read', 'deploy', 'admin']]);
  });
});
