import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EnvEdgePayload } from '../../contracts/env-edge.js';
import type { AgentContext } from '../context.js';
import { KeyedMutex } from '../../lib/mutex.js';
import { PortRegistry } from '../ports.js';
import { envEdge } from './env-edge.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'denv-env-edge-'));
// What env.edge uses of the context; providers `none` touch nothing else.
const ctx = { dataDir: dir, ports: new PortRegistry(dir), envLocks: new KeyedMutex(), log: () => {} } as unknown as AgentContext;
const payload = (env: string, generation?: number): EnvEdgePayload => ({
  env, proxy: { provider: 'none' }, dns: { provider: 'none' }, routes: [], remove_routes: [], remove_names: [], ...(generation !== undefined ? { generation } : {}),
});

describe('env.edge generations', () => {
  it('applies an env’s payloads in generation order: an older one is answered stale', async () => {
    expect((await envEdge.run(payload('env_a', 2000), ctx, Date.now())).proxy.status).toBe('skipped');
    const older = await envEdge.run(payload('env_a', 1000), ctx, Date.now());
    expect(older.proxy.status).toBe('stale');
    expect(older.dns.status).toBe('stale');
    expect((await envEdge.run(payload('env_a', 2000), ctx, Date.now())).proxy.status).toBe('skipped');
    expect((await envEdge.run(payload('env_a', 3000), ctx, Date.now())).proxy.status).toBe('skipped');
  });

  it('keeps each env’s order apart, and a payload without a generation (an older control plane) is never stale on a fresh env', async () => {
    expect((await envEdge.run(payload('env_b', 10), ctx, Date.now())).proxy.status).toBe('skipped');
    expect((await envEdge.run(payload('env_c'), ctx, Date.now())).proxy.status).toBe('skipped');
  });
});
