/** Per service `x-denv.edge`, and the top-level shorthand that lands on the one long-running service. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { TlsMode } from '../edge/proxy-provider.js';
import { parseSpec, type EdgeTls } from './spec.js';

const err = (src: unknown) => {
  try {
    parseSpec(src as Record<string, unknown>);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected parseSpec to throw');
};
/** A one-service file with `edge` as the service's x-denv.edge. */
const web = (edge: unknown) => ({ services: { web: { command: 'x', 'x-denv': { edge } } } });
const HOSTNAME_HELP = 'expected a DNS name like app.example.com (letters, digits, hyphens; no wildcard)';

describe('services.<s>.x-denv.edge', () => {
  it('defaults: no hostnames, tls auto, the service’s own port, 10 s of drain; no key is edge null', () => {
    expect(parseSpec(web({})).services.web!.edge).toEqual({ hostnames: [], tls: 'auto', port: null, drain_ms: 10_000 });
    expect(parseSpec({ services: { web: { command: 'x' } } }).services.web!.edge).toBeNull();
  });

  it('reads every field, and hostnames the way every edge provider takes them', () => {
    const spec = parseSpec(`
services:
  web:
    image: shop
    ports: ["8080:80", "9090"]
    x-denv:
      edge:
        hostnames: [Shop.Example.COM, www.example.com.]
        tls: internal
        port: 80
        drain: 1m30s
`);
    expect(spec.services.web!.edge).toEqual({ hostnames: ['shop.example.com', 'www.example.com'], tls: 'internal', port: 80, drain_ms: 90_000 });
    expect(parseSpec(web({ tls: 'off', drain: 2 })).services.web!.edge).toMatchObject({ tls: 'off', drain_ms: 2000 });
    expect(parseSpec(web({ drain: '500ms' })).services.web!.edge!.drain_ms).toBe(500);
    expect(parseSpec(web({ drain: '10m' })).services.web!.edge!.drain_ms).toBe(600_000);
    expect(parseSpec(web({ port: 65535 })).services.web!.edge!.port).toBe(65535);
  });

  it('takes the literal dotted key in a service too', () => {
    const spec = parseSpec({ services: { web: { command: 'x', 'x-denv.edge.hostnames': ['a.example.com'], 'x-denv.edge.tls': 'off' } } });
    expect(spec.services.web!.edge).toEqual({ hostnames: ['a.example.com'], tls: 'off', port: null, drain_ms: 10_000 });
  });

  it('is closed: an unknown field is refused, naming the path', () => {
    expect(err(web({ hosts: ['a.example.com'] }))).toBe('services.web.x-denv.edge: unknown field "hosts"');
    expect(err(web('a.example.com'))).toBe('services.web.x-denv.edge: Invalid input: expected object, received string');
  });

  it('refuses each bad field with its path', () => {
    expect(err(web({ tls: 'acme' }))).toBe('services.web.x-denv.edge.tls: Invalid option: expected one of "auto"|"internal"|"off"');
    expect(err(web({ port: 0 }))).toBe('services.web.x-denv.edge.port: Too small: expected number to be >=1');
    expect(err(web({ port: 65536 }))).toBe('services.web.x-denv.edge.port: Too big: expected number to be <=65535');
    expect(err(web({ port: 80.5 }))).toBe('services.web.x-denv.edge.port: Invalid input: expected int, received number');
    expect(err(web({ drain: 'soon' }))).toBe('services.web.x-denv.edge.drain: expected a duration such as 10s or 1m30s');
    expect(err(web({ drain: -1 }))).toBe('services.web.x-denv.edge.drain: expected a duration such as 10s or 1m30s');
    expect(err(web({ drain: '10m1s' }))).toBe('services.web.x-denv.edge.drain: expected at most 10m');
    expect(err(web({ hostnames: 'a.example.com' }))).toBe('services.web.x-denv.edge.hostnames: Invalid input: expected array, received string');
    expect(err(web({ hostnames: [5] }))).toBe('services.web.x-denv.edge.hostnames.0: Invalid input: expected string, received number');
    const many = Array.from({ length: 51 }, (_, i) => `h${i}.example.com`);
    expect(err(web({ hostnames: many }))).toBe('services.web.x-denv.edge.hostnames: Too big: expected array to have <=50 items');
    expect(parseSpec(web({ hostnames: many.slice(0, 50) })).services.web!.edge!.hostnames).toHaveLength(50);
  });

  it('refuses every name a provider would refuse, and a name listed twice, each with its index', () => {
    expect(err(web({ hostnames: ['ok.example.com', 'bad_name.example.com', 'localhost', '*.example.com', '10.0.0.1', 'OK.example.com.'] })).split('\n')).toEqual([
      `services.web.x-denv.edge.hostnames.1: invalid hostname "bad_name.example.com": ${HOSTNAME_HELP}`,
      `services.web.x-denv.edge.hostnames.2: invalid hostname "localhost": ${HOSTNAME_HELP}`,
      `services.web.x-denv.edge.hostnames.3: invalid hostname "*.example.com": ${HOSTNAME_HELP}`,
      `services.web.x-denv.edge.hostnames.4: invalid hostname "10.0.0.1": ${HOSTNAME_HELP}`,
      'services.web.x-denv.edge.hostnames.5: "ok.example.com" is listed twice',
    ]);
  });

  it('refuses one hostname on two services, naming both', () => {
    const src = {
      services: {
        web: { command: 'x', 'x-denv': { edge: { hostnames: ['shop.example.com'] } } },
        api: { command: 'y', 'x-denv': { edge: { hostnames: ['api.example.com', 'SHOP.example.com.'] } } },
      },
    };
    expect(err(src)).toBe('services.api.x-denv.edge.hostnames: "shop.example.com" is also a hostname of service "web": a hostname routes to one service');
  });

  it('has the tls modes the proxy providers take', () => {
    expectTypeOf<EdgeTls>().toEqualTypeOf<TlsMode>();
  });
});

describe('top-level x-denv.edge, the shorthand', () => {
  it('lands on the only service, normalized, and is no field of the Spec', () => {
    const spec = parseSpec({ services: { web: { command: 'x' } }, 'x-denv': { edge: { hostnames: ['Shop.example.com.'] } } });
    expect(spec.services.web!.edge).toEqual({ hostnames: ['shop.example.com'], tls: 'auto', port: null, drain_ms: 10_000 });
    expect(spec).not.toHaveProperty('edge');
    expect(parseSpec({ services: { web: { command: 'x' } }, 'x-denv.edge.hostnames': ['a.example.com'] }).services.web!.edge!.hostnames).toEqual(['a.example.com']);
  });

  it('takes the per-service fields as well', () => {
    const spec = parseSpec({ services: { web: { command: 'x' } }, 'x-denv': { edge: { hostnames: ['a.example.com'], tls: 'internal', drain: '1s' } } });
    expect(spec.services.web!.edge).toEqual({ hostnames: ['a.example.com'], tls: 'internal', port: null, drain_ms: 1000 });
  });

  it('lands on the one long-running service beside one-shots', () => {
    const spec = parseSpec({
      services: {
        migrate: { command: 'migrate' },
        web: { command: 'x', depends_on: { migrate: { condition: 'service_completed_successfully' } } },
      },
      'x-denv': { edge: { hostnames: ['shop.example.com'] } },
    });
    expect(spec.services.web!.edge!.hostnames).toEqual(['shop.example.com']);
    expect(spec.services.migrate!.edge).toBeNull();
  });

  it('is refused with two long-running services, saying where to put it', () => {
    expect(err({ services: { web: { command: 'x' }, api: { command: 'y' } }, 'x-denv': { edge: { hostnames: ['shop.example.com'] } } })).toBe(
      'x-denv.edge: the top-level edge is a shorthand for an app with one long-running service, and this one has 2 (web, api): put it under services.<name>.x-denv.edge',
    );
  });

  it('is refused beside the service’s own x-denv.edge', () => {
    expect(err({ services: { web: { command: 'x', 'x-denv': { edge: { hostnames: ['a.example.com'] } } } }, 'x-denv': { edge: { hostnames: ['b.example.com'] } } })).toBe(
      'x-denv.edge: services.web.x-denv.edge is set too: write the edge once, under services.web.x-denv.edge',
    );
  });

  it('is refused when every service is a one-shot', () => {
    const src = {
      services: {
        a: { command: 'x', depends_on: { b: { condition: 'service_completed_successfully' } } },
        b: { command: 'y', depends_on: { a: { condition: 'service_completed_successfully' } } },
      },
      'x-denv': { edge: { hostnames: ['a.example.com'] } },
    };
    expect(err(src)).toBe('x-denv.edge: every service is a one-shot (another service waits for it to complete): there is no service to route to');
  });

  it('names its own path for its hostnames', () => {
    expect(err({ services: { web: { command: 'x' } }, 'x-denv': { edge: { hostnames: ['nope'], hosts: [] } } })).toBe('x-denv.edge: unknown field "hosts"');
    expect(err({ services: { web: { command: 'x' } }, 'x-denv': { edge: { hostnames: ['nope'] } } })).toBe(`x-denv.edge.hostnames.0: invalid hostname "nope": ${HOSTNAME_HELP}`);
  });

  it('clashes with another service’s hostname at its own path', () => {
    const src = {
      services: {
        seed: { command: 's', 'x-denv': { edge: { hostnames: ['shop.example.com'] } } },
        web: { command: 'x', depends_on: { seed: { condition: 'service_completed_successfully' } } },
      },
      'x-denv': { edge: { hostnames: ['shop.example.com'] } },
    };
    expect(err(src)).toBe('x-denv.edge.hostnames: "shop.example.com" is also a hostname of service "seed": a hostname routes to one service');
  });
});
