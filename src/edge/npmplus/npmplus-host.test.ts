import { describe, expect, it } from 'vitest';
import { differs, hostPayload, readRoute, routeIdOf, type NpmProxyHost } from './npmplus-host.js';
import type { ProxyRoute } from '../proxy-provider.js';

const route: ProxyRoute = { id: 'env1.web', hostnames: ['a.example.com', 'b.example.com'], upstreams: [{ host: '10.0.0.5', port: 8001 }], tls: 'auto' };
const host = (over: Partial<NpmProxyHost> = {}): NpmProxyHost => ({ id: 7, domain_names: ['b.example.com', 'a.example.com'], forward_scheme: 'http', forward_host: '10.0.0.5', forward_port: 8001, certificate_id: 12, ssl_forced: 1, allow_websocket_upgrade: 1, advanced_config: '# denv-route: env1.web', ...over });

describe('npmplus proxy hosts', () => {
  it('the payload: shared schema fields, the marker, a new certificate for auto unless one exists', () => {
    expect(hostPayload(route, null)).toEqual({ domain_names: ['a.example.com', 'b.example.com'], forward_scheme: 'http', forward_host: '10.0.0.5', forward_port: 8001, certificate_id: 'new', ssl_forced: true, allow_websocket_upgrade: true, advanced_config: '# denv-route: env1.web' });
    expect(hostPayload(route, host()).certificate_id).toBe(12);
    expect(hostPayload({ ...route, tls: 'off' }, host())).toMatchObject({ certificate_id: 0, ssl_forced: false });
  });

  it('compares what denv sets, tolerant of 0/1 booleans, string ports and domain order', () => {
    expect(differs(host(), hostPayload(route, host()))).toBe(false);
    expect(differs(host({ forward_port: '8001' }), hostPayload(route, host()))).toBe(false);
    expect(differs(host({ forward_port: 8002 }), hostPayload(route, host()))).toBe(true);
    expect(differs(host({ advanced_config: '' }), hostPayload(route, host()))).toBe(true);
  });

  it('the marker is the first line of advanced_config; hosts without it are not denv’s', () => {
    expect(routeIdOf(host())).toBe('env1.web');
    expect(routeIdOf(host({ advanced_config: 'client_max_body_size 1m;\n# denv-route: x' }))).toBeNull();
    expect(routeIdOf(host({ advanced_config: undefined }))).toBeNull();
    expect(readRoute(host(), 'env1.web')).toEqual(route);
    expect(readRoute(host({ certificate_id: 0 }), 'env1.web').tls).toBe('off');
  });
});
