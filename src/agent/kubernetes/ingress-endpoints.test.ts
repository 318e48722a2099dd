import { describe, expect, it } from 'vitest';
import { ingressEndpoints } from './ingress-endpoints.js';

describe('ingressEndpoints', () => {
  it('gives https for hosts covered by tls (wildcards one label deep), http otherwise, without repeats', () => {
    expect(
      ingressEndpoints({
        spec: {
          tls: [{ hosts: ['shop.example.com', '*.apps.example.com'] }],
          rules: [{ host: 'shop.example.com' }, { host: 'api.apps.example.com' }, { host: 'a.b.apps.example.com' }, { host: 'plain.example.com' }, { host: 'shop.example.com' }],
        },
      }),
    ).toEqual(['https://shop.example.com', 'https://api.apps.example.com', 'http://a.b.apps.example.com', 'http://plain.example.com']);
  });

  it('answers on the load balancer for a rule without a host, and gives nothing without an address', () => {
    const status = { loadBalancer: { ingress: [{ ip: '203.0.113.7' }, { hostname: 'lb.example.net' }] } };
    expect(ingressEndpoints({ spec: { rules: [{}] }, status })).toEqual(['http://203.0.113.7', 'http://lb.example.net']);
    expect(ingressEndpoints({ spec: { defaultBackend: { service: { name: 'web' } } }, status })).toEqual(['http://203.0.113.7', 'http://lb.example.net']);
    expect(ingressEndpoints({ spec: { rules: [{}] } })).toEqual([]);
  });
});
