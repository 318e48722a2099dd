/**
 * PowerDNS rrsets for denv's names, and the PATCH that brings a zone from what it has to what
 * denv wants — pure: powerdns-dns.ts reads the zone, asks for the patch and sends it. One PATCH
 * changes A and AAAA together (PowerDNS applies a PATCH in one transaction).
 *
 * denv's rrsets carry a comment with account `denv`; rrsets without it are someone else's and
 * are never changed: an unmarked A, AAAA or CNAME where denv wants to publish is a conflict.
 * Names are absolute with the trailing dot, as the API wants them.
 */
import { DENV_RECORD_MARK, type DnsRecordSet } from '../dns-provider.js';
import { EdgeError } from '../edge-error.js';
import type { AddressFamily } from '../names.js';

export const DENV_COMMENT_ACCOUNT = 'denv';

export interface PdnsRecord {
  readonly content: string;
  readonly disabled: boolean;
}

export interface PdnsComment {
  readonly content: string;
  readonly account: string;
  readonly modified_at?: number;
}

/** An rrset as `GET …/zones/<zone>` lists it. */
export interface PdnsRRSet {
  readonly name: string;
  readonly type: string;
  readonly ttl?: number;
  readonly records: readonly PdnsRecord[];
  readonly comments?: readonly PdnsComment[];
}

/** One element of a `PATCH …/zones/<zone>` body's `rrsets`. */
export type PdnsChange =
  | { readonly name: string; readonly type: AddressFamily; readonly changetype: 'REPLACE'; readonly ttl: number; readonly records: readonly PdnsRecord[]; readonly comments: readonly PdnsComment[] }
  | { readonly name: string; readonly type: AddressFamily; readonly changetype: 'DELETE' };

export interface PdnsPlan {
  readonly changes: readonly PdnsChange[];
  readonly existed: boolean;
}

export const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`);
export const isDenvRRSet = (rr: PdnsRRSet) => (rr.comments ?? []).some((c) => c.account === DENV_COMMENT_ACCOUNT);

const FAMILIES: readonly AddressFamily[] = ['A', 'AAAA'];

/**
 * The changes that make `name` resolve to exactly `want` (addresses already normalized and
 * sorted per family). Throws `conflict` when an rrset denv did not write holds the name.
 */
export function planUpsert(rrsets: readonly PdnsRRSet[], name: string, want: Readonly<Record<AddressFamily, readonly string[]>>, ttl: number): PdnsPlan {
  const at = rrsets.filter((rr) => rr.name === fqdn(name));
  const foreign = at.find((rr) => (rr.type === 'CNAME' || FAMILIES.includes(rr.type as AddressFamily)) && !isDenvRRSet(rr));
  if (foreign) throw new EdgeError('conflict', `${foreign.type} ${fqdn(name)} exists and was not created by denv: remove it or choose another hostname`);
  const changes: PdnsChange[] = [];
  for (const type of FAMILIES) {
    const current = at.find((rr) => rr.type === type);
    const addresses = want[type];
    if (addresses.length === 0) {
      if (current) changes.push({ name: fqdn(name), type, changetype: 'DELETE' });
      continue;
    }
    const contents = current ? current.records.filter((r) => !r.disabled).map((r) => r.content).sort() : [];
    if (!current || current.ttl !== ttl || current.records.some((r) => r.disabled) || contents.join(' ') !== addresses.join(' ')) {
      changes.push({
        name: fqdn(name),
        type,
        changetype: 'REPLACE',
        ttl,
        records: addresses.map((content) => ({ content, disabled: false })),
        comments: [{ content: DENV_RECORD_MARK, account: DENV_COMMENT_ACCOUNT }],
      });
    }
  }
  return { changes, existed: at.some(isDenvRRSet) };
}

/** DELETE for denv's A and AAAA rrsets at `name`; others' are left alone. */
export function planRemove(rrsets: readonly PdnsRRSet[], name: string): PdnsPlan {
  const ours = rrsets.filter((rr) => rr.name === fqdn(name) && FAMILIES.includes(rr.type as AddressFamily) && isDenvRRSet(rr));
  return { changes: ours.map((rr) => ({ name: rr.name, type: rr.type as AddressFamily, changetype: 'DELETE' as const })), existed: ours.length > 0 };
}

/** denv's names in the zone with their addresses (names without the trailing dot), sorted. */
export function readRecordSets(rrsets: readonly PdnsRRSet[]): DnsRecordSet[] {
  const byName = new Map<string, string[]>();
  for (const rr of rrsets) {
    if (!FAMILIES.includes(rr.type as AddressFamily) || !isDenvRRSet(rr)) continue;
    const name = rr.name.replace(/\.$/, '');
    byName.set(name, [...(byName.get(name) ?? []), ...rr.records.filter((r) => !r.disabled).map((r) => r.content)]);
  }
  return [...byName].map(([name, addresses]) => ({ name, addresses: addresses.sort() })).sort((a, b) => a.name.localeCompare(b.name));
}
