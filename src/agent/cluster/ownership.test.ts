import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../contracts/kubernetes.js';
import { notOwned, stamped } from './ownership.js';

const obj = (labels?: Record<string, string>): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop-prod-web', ...(labels ? { labels } : {}) } });

describe('ownership of cluster objects', () => {
  it('stamps the env id on every object, keeping its labels', () => {
    expect(stamped([obj({ a: '1' })], 'env_1')[0]!.metadata.labels).toEqual({ a: '1', 'denv.dev/env-id': 'env_1' });
  });

  it("lets an env change only what carries its own id", () => {
    expect(notOwned(obj({ 'denv.dev/env-id': 'env_1' }), 'env_1')).toBeNull();
    expect(notOwned(obj({ 'denv.dev/env-id': 'env_2' }), 'env_1')).toBe('Deployment shop-prod-web belongs to env env_2: denv does not change or delete it');
    expect(notOwned(obj(), 'env_1')).toBe('Deployment shop-prod-web belongs to no denv env (it was made by someone else): denv does not change or delete it');
  });
});
