/**
 * The checks every provider applies before it talks to a server, so a bad name fails the same
 * way everywhere (`invalid`, not retryable) and nothing half-valid reaches a proxy or a zone.
 * Pure.
 */
import { isIP } from 'node:net';
import { EdgeError } from './edge-error.js';

/** DNS names as denv publishes them: lower-case LDH labels, no wildcard, no trailing dot, ≤ 253 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normalizeHostname(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  const labels = lower.split('.');
  if (lower.length === 0 || lower.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || isIP(lower) !== 0) {
    throw new EdgeError('invalid', `invalid hostname ${JSON.stringify(name)}: expected a DNS name like app.example.com (letters, digits, hyphens; no wildcard)`);
  }
  return lower;
}

/** Sorted, de-duplicated, normalized; at least one. */
export function normalizeHostnames(names: readonly string[], what: string): string[] {
  if (names.length === 0) throw new EdgeError('invalid', `${what}: at least one hostname is needed`);
  return [...new Set(names.map(normalizeHostname))].sort();
}

/**
 * Route ids are chosen by the caller (e.g. `<env id>.<service>`) and become part of provider
 * object names (Caddy `@id`, an NPMplus marker), so they are kept to characters every provider
 * takes in a URL path unescaped.
 */
const ROUTE_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export function checkRouteId(id: string): string {
  if (!ROUTE_ID.test(id)) throw new EdgeError('invalid', `invalid route id ${JSON.stringify(id)}: expected 1–100 of a-z 0-9 . _ - starting with a letter or digit`);
  return id;
}

export type AddressFamily = 'A' | 'AAAA';

/** An IP address in the form DNS servers answer with (IPv6 compressed, lower case), and its record type. */
export function normalizeAddress(address: string): { readonly address: string; readonly type: AddressFamily } {
  const a = address.trim();
  switch (isIP(a)) {
    case 4:
      return { address: a, type: 'A' };
    case 6:
      // URL's host parser prints IPv6 in the canonical RFC 5952 form (`2001:db8::1`).
      return { address: new URL(`http://[${a}]/`).hostname.slice(1, -1), type: 'AAAA' };
    default:
      throw new EdgeError('invalid', `invalid address ${JSON.stringify(address)}: expected an IPv4 or IPv6 address`);
  }
}

/** Addresses split by record type, each list sorted and de-duplicated; at least one address. */
export function addressesByType(addresses: readonly string[], what: string): Readonly<Record<AddressFamily, readonly string[]>> {
  if (addresses.length === 0) throw new EdgeError('invalid', `${what}: at least one address is needed (use removeRecords to delete)`);
  const out: Record<AddressFamily, Set<string>> = { A: new Set(), AAAA: new Set() };
  for (const raw of addresses) {
    const { address, type } = normalizeAddress(raw);
    out[type].add(address);
  }
  return { A: [...out.A].sort(), AAAA: [...out.AAAA].sort() };
}

/** `host:port` for dialing, with IPv6 hosts in brackets. */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

export function checkPort(port: number, what: string): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new EdgeError('invalid', `${what}: port ${port} is not between 1 and 65535`);
  return port;
}

/** Whether `name` is `zone` or below it (both without trailing dots, lower case). */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}
