import { describe, expect, test } from 'vitest';
import type { ServiceSpec } from '../../../contracts/spec-types.js';
import { containerPort, portFromInstructions } from './container-port.js';

const service = (over: Partial<ServiceSpec> = {}): ServiceSpec => ({
  image: 'a/web:1', command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 }, ...over,
});

describe('portFromInstructions', () => {
  test.each([
    ['port 3000', 3000],
    ['Use PORT=5000 please', 5000],
    ['ports: 8000', 8000],
    ['the port is 7000', 7000],
    ['it listens on 3000', 3000],
    ['listening on :4000', 4000],
    ['Listens on port 9090', 9090],
    ['server listening on 0.0.0.0:8081', 8081],
    ['exposes 5173', 5173],
    ['listens on 3000; the admin port 9000 stays internal', 3000],
  ])('%s → %i', (text, port) => expect(portFromInstructions(text)).toBe(port));

  test.each(['keep it cheap', 'support 80 users', 'export 3000 rows', 'port 70000', 'port 0', ''])('%s → none', (text) => {
    expect(portFromInstructions(text)).toBeNull();
  });
});

describe('containerPort: instructions, then the spec, then 8080', () => {
  test('the instructions win over the spec', () => {
    expect(containerPort(service({ ports: [9000] }), 'port 3000')).toEqual({ port: 3000, from: 'instructions' });
  });
  test('the spec: edge port, then the first port, then the HTTP health port', () => {
    const edge = { hostnames: [], tls: 'auto' as const, port: 7000, drain_ms: 10_000 };
    expect(containerPort(service({ ports: [9000, 7000], edge }), '')).toEqual({ port: 7000, from: 'spec' });
    expect(containerPort(service({ ports: [9000, 7000] }), '')).toEqual({ port: 9000, from: 'spec' });
    expect(containerPort(service({ health: { kind: 'http', path: '/up', port: 4567, timeout_ms: 1000 } }), '')).toEqual({ port: 4567, from: 'spec' });
  });
  test('8080 otherwise', () => {
    expect(containerPort(service(), 'nothing here')).toEqual({ port: 8080, from: 'default' });
  });
});
