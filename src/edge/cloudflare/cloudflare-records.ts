/**
 * Cloudflare DNS records for denv's names, and the one batch call that brings a name from what
 * it has to what denv wants — pure: cloudflare-dns.ts lists the name's records, asks for the
 * batch and sends it (`POST /zones/<zone>/dns_records/batch`, which Cloudflare applies
 * atomically: deletes, then posts).
 *
 * denv's records carry `comment: "managed by denv"` (comments exist on every plan; tags do
 * not); records without it are someone else's and are never changed: an unmarked A, AAAA or
 * CNAME where denv wants to publish is a conflict. Records are DNS-only (`proxied: false`):
 * denv's proxy terminates TLS itself.
 */
import { DENV_RECORD_MARK, type DnsRecordSet } from '../dns-provider.js';
import { EdgeError } from '../edge-error.js';
import type { AddressFamily } from '../names.js';

/** A record as the API lists it (the fields denv reads). */
export interface CfRecord {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly content: string;
  readonly ttl?: number;
  readonly proxied?: boolean;
  readonly comment?: string | null;
}

export interface CfNewRecord {
  readonly name: string;
  readonly type: AddressFamily;
  readonly content: string;
  readonly ttl: number;
  readonly proxied: false;
  readonly comment: string;
}

export interface CfBatch {
  readonly deletes: readonly { readonly id: string }[];
  readonly posts: readonly CfNewRecord[];
}

export interface CfPlan {
  readonly batch: CfBatch;
  readonly existed: boolean;
}

const FAMILIES: readonly AddressFamily[] = ['A', 'AAAA'];
const isOurs = (r: CfRecord) => r.comment === DENV_RECORD_MARK;
const isAddress = (r: CfRecord) => FAMILIES.includes(r.type as AddressFamily);

/**
 * The batch that makes `name` resolve to exactly `want` (normalized, sorted per family), given
 * every record the API lists at `name`. Records already right stay untouched.
 */
export function planUpsert(atName: readonly CfRecord[], name: string, want: Readonly<Record<AddressFamily, readonly string[]>>, ttl: number): CfPlan {
  const foreign = atName.find((r) => (isAddress(r) || r.type === 'CNAME') && !isOurs(r));
  if (foreign) throw new EdgeError('conflict', `${foreign.type} ${name} exists and was not created by denv: remove it or choose another hostname`);
  const ours = atName.filter((r) => isAddress(r) && isOurs(r));
  const deletes: { id: string }[] = [];
  const posts: CfNewRecord[] = [];
  for (const type of FAMILIES) {
    const kept = new Set<string>();
    for (const r of ours.filter((x) => x.type === type)) {
      const content = type === 'AAAA' ? canonicalV6(r.content) : r.content;
      if (want[type].includes(content) && !kept.has(content) && r.ttl === ttl && r.proxied !== true) kept.add(content);
      else deletes.push({ id: r.id });
    }
    for (const content of want[type]) if (!kept.has(content)) posts.push({ name, type, content, ttl, proxied: false, comment: DENV_RECORD_MARK });
  }
  return { batch: { deletes, posts }, existed: ours.length > 0 };
}

/** Deletes for denv's A and AAAA records among `atName`; others' stay. */
export function planRemove(atName: readonly CfRecord[]): CfPlan {
  const ours = atName.filter((r) => isAddress(r) && isOurs(r));
  return { batch: { deletes: ours.map((r) => ({ id: r.id })), posts: [] }, existed: ours.length > 0 };
}

export const isEmpty = (b: CfBatch) => b.deletes.length === 0 && b.posts.length === 0;

/** denv's names with their addresses, sorted. */
export function readRecordSets(records: readonly CfRecord[]): DnsRecordSet[] {
  const byName = new Map<string, Set<string>>();
  for (const r of records) {
    if (!isAddress(r) || !isOurs(r)) continue;
    const name = r.name.toLowerCase();
    byName.set(name, (byName.get(name) ?? new Set()).add(r.type === 'AAAA' ? canonicalV6(r.content) : r.content));
  }
  return [...byName].map(([name, set]) => ({ name, addresses: [...set].sort() })).sort((a, b) => a.name.localeCompare(b.name));
}

function canonicalV6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}
