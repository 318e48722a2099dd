import { describe, expect, it } from 'vitest';
import { addressesByType, checkRouteId, hostPort, inZone, normalizeAddress, normalizeHostname, normalizeHostnames } from './names.js';
import { normalizeRoute } from './proxy-provider.js';

describe('edge names', () => {
  it('hostnames: lower case, no trailing dot; wildcards, IPs, single labels and junk are invalid', () => {
    expect(normalizeHostname(' App.Example.COM. ')).toBe('app.example.com');
    expect(normalizeHostnames(['b.example.com', 'A.example.com', 'b.example.com'], 'x')).toEqual(['a.example.com', 'b.example.com']);
    for (const bad of ['*.example.com', '192.0.2.1', 'localhost', 'a..b.com', '-a.example.com', 'a_b.example.com', `${'a'.repeat(64)}.com`, '']) {
      expect(() => normalizeHostname(bad), bad).toThrow(expect.objectContaining({ reason: 'invalid' }));
    }
    expect(() => normalizeHostnames([], 'route x')).toThrow('route x: at least one hostname is needed');
  });

  it('route ids: a-z 0-9 . _ -, starting with a letter or digit', () => {
    expect(checkRouteId('env_01.web-1')).toBe('env_01.web-1');
    for (const bad of ['', '.x', 'A', 'a/b', 'a b', 'x'.repeat(101)]) expect(() => checkRouteId(bad)).toThrow(expect.objectContaining({ reason: 'invalid' }));
  });

  it('addresses: A for IPv4, AAAA for canonical IPv6, sorted and de-duplicated', () => {
    expect(normalizeAddress('2001:DB8:0:0:0:0:0:1')).toEqual({ address: '2001:db8::1', type: 'AAAA' });
    expect(addressesByType(['192.0.2.2', '2001:db8::1', '192.0.2.1', '192.0.2.2'], 'x')).toEqual({ A: ['192.0.2.1', '192.0.2.2'], AAAA: ['2001:db8::1'] });
    expect(() => addressesByType([], 'records of a.example.com')).toThrow('records of a.example.com: at least one address is needed (use removeRecords to delete)');
    expect(() => normalizeAddress('example.com')).toThrow(expect.objectContaining({ reason: 'invalid' }));
  });

  it('host:port brackets IPv6; zones contain their own names and subdomains only', () => {
    expect(hostPort('::1', 80)).toBe('[::1]:80');
    expect(hostPort('10.0.0.1', 80)).toBe('10.0.0.1:80');
    expect(inZone('a.example.com', 'example.com')).toBe(true);
    expect(inZone('example.com', 'example.com')).toBe(true);
    expect(inZone('badexample.com', 'example.com')).toBe(false);
  });

  it('normalizeRoute checks tls, upstreams and ports', () => {
    const r = { id: 'a', hostnames: ['A.example.com'], upstreams: [{ host: '127.0.0.1', port: 80 }], tls: 'off' as const };
    expect(normalizeRoute(r)).toEqual({ ...r, hostnames: ['a.example.com'] });
    expect(() => normalizeRoute({ ...r, tls: 'on' as never })).toThrow('route a: tls must be one of auto, internal, off, not "on"');
    expect(() => normalizeRoute({ ...r, upstreams: [{ host: '127.0.0.1', port: 0 }] })).toThrow(expect.objectContaining({ reason: 'invalid' }));
    expect(() => normalizeRoute({ ...r, upstreams: [{ host: 'a b', port: 80 }] })).toThrow(expect.objectContaining({ reason: 'invalid' }));
  });
});
