import { describe, expect, it } from 'vitest';
import type os from 'node:os';
import { detectPublicAddresses, publicAddresses } from './public-address.js';

type Info = os.NetworkInterfaceInfo;
const nic = (address: string, internal = false): Info => ({ address, internal, family: address.includes(':') ? 'IPv6' : 'IPv4', netmask: '', mac: '', cidr: null, ...(address.includes(':') ? { scopeid: 0 } : {}) }) as Info;

describe('public address', () => {
  it('prefers a public IPv4 and a global IPv6 over private, link-local and loopback ones', () => {
    expect(detectPublicAddresses({ lo: [nic('127.0.0.1', true), nic('::1', true)], eth0: [nic('10.0.0.5'), nic('fe80::1'), nic('fd00::5')], eth1: [nic('203.0.113.7'), nic('2001:db8::7')] })).toEqual(['203.0.113.7', '2001:db8::7']);
  });

  it('falls back to a private address (a host behind NAT sets public_ip) and to nothing with loopback only', () => {
    expect(detectPublicAddresses({ eth0: [nic('192.168.1.20'), nic('169.254.3.3')] })).toEqual(['192.168.1.20']);
    expect(detectPublicAddresses({ lo: [nic('127.0.0.1', true)] })).toEqual([]);
    // A unique-local IPv6 is never published: nobody outside reaches it.
    expect(detectPublicAddresses({ eth0: [nic('192.0.2.2'), nic('fd00::2')] })).toEqual(['192.0.2.2']);
  });

  it('the configured public_ip wins', () => {
    expect(publicAddresses(['198.51.100.1'], { eth1: [nic('203.0.113.7')] })).toEqual(['198.51.100.1']);
    expect(publicAddresses(null, { eth1: [nic('203.0.113.7')] })).toEqual(['203.0.113.7']);
  });
});
