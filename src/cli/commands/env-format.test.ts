import { describe, expect, it } from 'vitest';
import type { Env } from '../../contracts/domain.js';
import { formatEndpoints, formatEnvDetail } from './env.js';

const env = (o: Partial<Env> = {}): Env => ({
  id: 'env_1', name: 'production', project: 'prj_1', stage: 'production', status: 'running', current_version: 'ver_1', parent_version: null, host: 'host_1',
  target: 'host', aws_account: null, endpoints: [{ service: 'web', url: 'http://127.0.0.1:4100', public: ['https://shop.example.com'] }, { service: 'db', url: 'http://127.0.0.1:4101' }],
  last_error: null, created_at: '2026-12-02T00:00:00.000Z', edge: null, ...o,
});

describe('env output with the edge', () => {
  it('lists the public URL where there is one, the host URL otherwise', () => {
    expect(formatEndpoints(env().endpoints)).toBe('web→https://shop.example.com db→http://127.0.0.1:4101');
  });

  it('env show gives both URLs and the edge’s state, naming a failing provider', () => {
    const out = formatEnvDetail(env({
      edge: { status: 'degraded', names: ['shop.example.com'], applied_at: '2026-12-02T00:00:00.000Z', proxy: { provider: 'caddy', status: 'failed', error: { reason: 'unreachable', retryable: true, message: 'caddy admin API at 127.0.0.1:2019: connection refused' } }, dns: { provider: 'none', status: 'skipped', addresses: [] } },
    }));
    expect(out).toContain('web → https://shop.example.com, http://127.0.0.1:4100');
    expect(out).toMatch(/edge:\s+degraded — caddy: caddy admin API at 127\.0\.0\.1:2019: connection refused/);
  });
});
