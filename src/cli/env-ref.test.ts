import { describe, expect, it } from 'vitest';
import type { Env } from '../contracts/domain.js';
import { parseEnvRef, pickEnv } from './env-ref.js';

describe('env arguments', () => {
  it('an id passes through; <project>/<env> and a bare name are names', () => {
    expect(parseEnvRef('env_0123abcd')).toEqual({ kind: 'id', id: 'env_0123abcd' });
    expect(parseEnvRef('shop/production')).toEqual({ kind: 'path', project: 'shop', env: 'production' });
    expect(parseEnvRef('prj_0123/staging')).toEqual({ kind: 'path', project: 'prj_0123', env: 'staging' });
    expect(parseEnvRef('production')).toEqual({ kind: 'name', env: 'production' });
    // Env names are slugs (no `_`), so `env_…` is never a name.
    expect(parseEnvRef('env-1')).toEqual({ kind: 'name', env: 'env-1' });
  });

  it('refuses what names no env, saying which forms are allowed', () => {
    for (const bad of ['', '/', 'shop/', '/production', 'a/b/c']) {
      expect(() => parseEnvRef(bad), bad).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringContaining('expected an env id (env_…), <project>/<env>, or an env name') }));
    }
  });

  it('among envs sharing a name prefers the live one, else the newest', () => {
    const env = (id: string, status: string, created_at: string) => ({ id, status, created_at }) as unknown as Env;
    const old = env('env_a', 'torn_down', '2025-01-01T00:00:00Z');
    const live = env('env_b', 'running', '2025-01-02T00:00:00Z');
    const newer = env('env_c', 'separated', '2025-01-03T00:00:00Z');
    expect(pickEnv([old, live, newer])).toBe(live);
    expect(pickEnv([old, newer])).toBe(newer);
    expect(pickEnv([])).toBeNull();
  });
});
