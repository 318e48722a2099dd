/** Short-syntax ports (the Compose specification's own list) in the long form `docker compose config` prints. */
import { describe, expect, it } from 'vitest';
import { normalizePorts, parsePortSpec } from './ports.js';
import { Problems } from './problems.js';

const tcp = (target: number, published?: string, host_ip?: string) => ({ mode: 'ingress', ...(host_ip ? { host_ip } : {}), target, ...(published ? { published } : {}), protocol: 'tcp' });

describe('parsePortSpec (services.ports short syntax examples)', () => {
  it.each([
    ['3000', [tcp(3000)]],
    ['3000-3002', [tcp(3000), tcp(3001), tcp(3002)]],
    ['8000:8000', [tcp(8000, '8000')]],
    ['9090-9091:8080-8081', [tcp(8080, '9090'), tcp(8081, '9091')]],
    ['49100:22', [tcp(22, '49100')]],
    ['8000-9000:80', [tcp(80, '8000-9000')]],
    ['127.0.0.1:8001:8001', [tcp(8001, '8001', '127.0.0.1')]],
    ['127.0.0.1:5000-5001:5000-5001', [tcp(5000, '5000', '127.0.0.1'), tcp(5001, '5001', '127.0.0.1')]],
    ['::1:6000:6000', [tcp(6000, '6000', '::1')]],
    ['[::1]:6001:6001', [tcp(6001, '6001', '::1')]],
    ['6060:6060/udp', [{ ...tcp(6060, '6060'), protocol: 'udp' }]],
    ['127.0.0.1::5432', [tcp(5432, undefined, '127.0.0.1')]],
  ])('%s', (spec, expected) => {
    expect(parsePortSpec(spec)).toEqual(expected);
  });

  it.each([
    ['80/http', /protocol "http"/],
    ['x:80', /published port "x"/],
    ['70000', /above 65535/],
    ['9000-9002:80-81', /differ in size/],
    ['90-80', /ends before it starts/],
    ['1-65535', /more than 1024 container ports/],
  ])('%s is refused', (spec, error) => {
    expect(() => parsePortSpec(spec)).toThrow(error);
  });
});

describe('normalizePorts', () => {
  it('reads numbers, strings and the long syntax; published becomes a string', () => {
    const problems = new Problems();
    const out = normalizePorts([80, '8080:80', { target: 443, published: 8443, host_ip: '127.0.0.1', protocol: 'tcp', mode: 'host', name: 'https', app_protocol: 'https' }, { target: '53', protocol: 'udp' }], 'services.web.ports', problems);
    expect(problems.lines()).toEqual([]);
    expect(out).toEqual([
      tcp(80),
      tcp(80, '8080'),
      { mode: 'host', host_ip: '127.0.0.1', target: 443, published: '8443', protocol: 'tcp', name: 'https', app_protocol: 'https' },
      { mode: 'ingress', target: 53, protocol: 'udp' },
    ]);
  });

  it('names every bad entry by its index', () => {
    const problems = new Problems();
    normalizePorts(['80:80', 'nope', { target: 'x' }], 'services.web.ports', problems);
    expect(problems.lines()).toEqual(['services.web.ports.1: container port "nope" is not a port or a range of ports', 'services.web.ports.2.target: expected a port number (0-65535)']);
  });
});
