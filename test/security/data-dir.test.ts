/**
 * Issue 10, item 3: the control plane's data dir is the owner's alone. PGlite writes its files
 * 0666 (and the test template is copied with whatever modes it had): after a start every file
 * under pgdata is 0600 and every dir 0700, the data dir is 0700 and admin-token 0600 — and a
 * restart tightens again what was widened meanwhile.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api } from '../helpers/api.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

/** Every path under `root` whose mode is not owner-only (files 0600, dirs 0700), with its mode. */
function widerThanOwner(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) out.push(`${p} ${mode.toString(8)}`);
      for (const n of readdirSync(p)) walk(join(p, n));
    } else if (mode !== 0o600) out.push(`${p} ${mode.toString(8)}`);
  };
  walk(root);
  return out;
}

describe('control-plane data dir modes', () => {
  let cp: ControlPlane | undefined;
  afterAll(async () => {
    await cp?.close();
  });

  it('is 0700 with pgdata owner-only and admin-token 0600, and a restart tightens again', async () => {
    const dir = join(freshDataDir(), 'cp');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755); // as an older version left it
    const opts = await storeOptions('pglite', dir);
    cp = await startControlPlane({ port: 0, ...opts, log: () => {} });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(widerThanOwner(join(dir, 'pgdata'))).toEqual([]);
    // Files PGlite creates while running sit under 0700 dirs (unreachable to others), and are
    // tightened themselves when the store closes.
    expect((await new Api(cp.url, cp.adminToken).post('/v1/projects', { name: 'modes' })).status).toBe(201);
    expect(statSync(join(dir, 'pgdata')).mode & 0o777).toBe(0o700);
    await cp.close();
    cp = undefined;
    expect(widerThanOwner(join(dir, 'pgdata'))).toEqual([]);

    // someone widens things while it is stopped; the next start puts them back
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'admin-token'), 0o644);
    chmodSync(join(dir, 'pgdata'), 0o777);
    const some = readdirSync(join(dir, 'pgdata', 'base')).map((n) => join(dir, 'pgdata', 'base', n));
    chmodSync(some[0]!, 0o777);
    cp = await startControlPlane({ port: 0, dataDir: dir, log: () => {} });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(widerThanOwner(join(dir, 'pgdata'))).toEqual([]);
  });
});
