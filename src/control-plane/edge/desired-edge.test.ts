import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../contracts/spec.js';
import { edgeRouteId } from '../../contracts/env-edge.js';
import { desiredEdge, dnsLabel, withPublic, type EdgeInputs } from './desired-edge.js';

const services = (compose: object) => parseSpec(compose as Record<string, unknown>).services;
const web = (edge: object, extra: object = {}) => ({ command: ['node', 'app.js'], ...extra, 'x-denv': { edge } });
const inputs = (o: Partial<EdgeInputs> & { compose: object }): EdgeInputs => ({
  env: { id: 'env_ab12', name: 'production', stage: 'production', ...o.env },
  project: o.project ?? 'shop',
  baseDomain: o.baseDomain === undefined ? 'apps.example.com' : o.baseDomain,
  services: services(o.compose),
  ports: o.ports ?? { web: 4100, api: 4101 },
});

describe('desiredEdge', () => {
  it('production: the spec’s hostnames, to the service’s host port, with its tls and drain', () => {
    const d = desiredEdge(inputs({ compose: { services: { web: web({ hostnames: ['Shop.Example.com.', 'www.example.com'], tls: 'internal', drain: '2s' }) } } }));
    expect(d).toEqual({
      routes: [{ id: 'env_ab12.web', service: 'web', hostnames: ['shop.example.com', 'www.example.com'], tls: 'internal', port: 4100, drain_ms: 2000 }],
      names: ['shop.example.com', 'www.example.com'],
      skipped: [],
    });
  });

  it('production without hostnames gets the automatic name; services without x-denv.edge get nothing', () => {
    const d = desiredEdge(inputs({ compose: { services: { web: web({}), worker: { command: ['node', 'w.js'] } } } }));
    expect(d.routes.map((r) => [r.service, r.hostnames, r.tls, r.drain_ms])).toEqual([['web', ['production.shop.apps.example.com'], 'auto', 10_000]]);
  });

  it('other stages never use the spec’s hostnames: <env>.<project>.<base>', () => {
    const d = desiredEdge(inputs({ env: { id: 'env_cd', name: 'PR 7', stage: 'preview' }, project: 'My_Shop', compose: { services: { web: web({ hostnames: ['shop.example.com'] }) } } }));
    expect(d.names).toEqual(['pr-7.my-shop.apps.example.com']);
  });

  it('several services with an edge: <service>.<env>.<project>.<base> each', () => {
    const d = desiredEdge(inputs({ env: { id: 'env_cd', name: 'pr-7', stage: 'fork' }, compose: { services: { web: web({}), api: web({}) } } }));
    expect(d.names).toEqual(['api.pr-7.shop.apps.example.com', 'web.pr-7.shop.apps.example.com']);
  });

  it('no base domain outside production: skipped with the reason', () => {
    const d = desiredEdge(inputs({ env: { id: 'env_cd', name: 'pr-7', stage: 'preview' }, baseDomain: null, compose: { services: { web: web({ hostnames: ['shop.example.com'] }) } } }));
    expect(d.routes).toEqual([]);
    expect(d.skipped).toEqual([{ service: 'web', reason: expect.stringContaining('no base domain is set for the project or the team') }]);
  });

  it('edge.port: the published host port of an image service, the port itself for a process; unpublished is skipped', () => {
    const image = (port: number) => ({ image: 'registry.example/app@sha256:' + 'a'.repeat(64), ports: ['8081:8080', '9000'], 'x-denv': { edge: { hostnames: ['a.example.com'], port } } });
    expect(desiredEdge(inputs({ compose: { services: { web: image(8080) } } })).routes[0]!.port).toBe(8081);
    const unpublished = desiredEdge(inputs({ compose: { services: { web: image(9000) } } }));
    expect(unpublished.skipped).toEqual([{ service: 'web', reason: expect.stringContaining('x-denv.edge.port 9000 is not published') }]);
    expect(desiredEdge(inputs({ compose: { services: { web: web({ hostnames: ['a.example.com'], port: 7000 }) } } })).routes[0]!.port).toBe(7000);
  });

  it('a service that did not start (no port) is skipped', () => {
    const d = desiredEdge(inputs({ ports: {}, compose: { services: { web: web({ hostnames: ['a.example.com'] }) } } }));
    expect(d.skipped).toEqual([{ service: 'web', reason: 'the service has no port on the host' }]);
  });
});

describe('names and URLs', () => {
  it('dnsLabel and edgeRouteId keep to what DNS and providers take', () => {
    expect(dnsLabel('PR #7 (draft)')).toBe('pr-7-draft');
    expect(dnsLabel('___')).toBeNull();
    expect(dnsLabel('x'.repeat(80))).toHaveLength(63);
    expect(edgeRouteId('env_AB', 'Web Front')).toBe('env_ab.web-front');
  });

  it('withPublic adds https URLs for tls auto/internal, http for off, only to routed services', () => {
    const d = desiredEdge(inputs({ compose: { services: { web: web({ hostnames: ['a.example.com'], tls: 'off' }), api: web({ hostnames: ['api.example.com'] }) } } }));
    expect(withPublic([{ service: 'web', url: 'http://127.0.0.1:4100' }, { service: 'api', url: 'http://127.0.0.1:4101' }, { service: 'db', url: 'http://127.0.0.1:4102' }], d)).toEqual([
      { service: 'web', url: 'http://127.0.0.1:4100', public: ['http://a.example.com'] },
      { service: 'api', url: 'http://127.0.0.1:4101', public: ['https://api.example.com'] },
      { service: 'db', url: 'http://127.0.0.1:4102' },
    ]);
  });
});
