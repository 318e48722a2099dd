import { expect, it } from 'vitest';
import { containerResources, memoryQuantity } from './container-resources.js';

it('containerResources: defaults, the spec\'s limits, requests never above limits', () => {
  expect(containerResources(undefined)).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } });
  expect(containerResources({ memory_bytes: 2 * 1024 ** 3, cpus: 1.5, pids: 100 })).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1500m', memory: '2Gi' } });
  expect(containerResources({ memory_bytes: 64 * 1024 ** 2, cpus: 0.05, pids: null })).toEqual({ requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '50m', memory: '64Mi' } });
  expect([memoryQuantity(1536 * 1024), memoryQuantity(1000)]).toEqual(['1536Ki', '1000']);
});
