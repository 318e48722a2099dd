/**
 * The DNS server that publishes denv's hostnames (DESIGN §8): one interface, one implementation
 * per product (powerdns/, cloudflare/, none.ts). The pipeline's `dns` stage upserts the
 * hostname's A/AAAA records with the host's public addresses; teardown removes them; the edge
 * sweep converges with `listRecords`.
 *
 * Contract for every implementation:
 *   - Records are denv's own: marked when written (a comment), and `listRecords`,
 *     `upsertRecords` and `removeRecords` touch only marked records. An unmarked A, AAAA or
 *     CNAME at the name is a `conflict`: denv never overwrites records it did not create.
 *   - `upsertRecords` sets the name's A records to the IPv4 addresses and its AAAA records to
 *     the IPv6 ones, removing denv's records of a family that is no longer listed; it is
 *     idempotent (a re-run writes nothing and answers `unchanged`), and both families change in
 *     one write where the provider allows it.
 *   - Names must lie inside the provider's zone (`invalid` otherwise).
 *   - Every HTTP call has a timeout; failures throw `EdgeError` without secrets in the message.
 */
import type { CallOptions, Change } from './change.js';
import type { Readiness } from './readiness.js';

export interface DnsRecordSet {
  /** Fully qualified, without the trailing dot: `app.example.com`. */
  readonly name: string;
  /** IPv4 → A records, IPv6 → AAAA records. */
  readonly addresses: readonly string[];
}

export const DNS_KINDS = ['powerdns', 'cloudflare', 'none'] as const;
export type DnsKind = (typeof DNS_KINDS)[number];

/** The comment denv writes on its records and looks for when reading them back. */
export const DENV_RECORD_MARK = 'managed by denv';

export interface DnsProvider {
  readonly kind: DnsKind;
  /** How errors and evidence name it, without secrets: `powerdns API at 127.0.0.1:8081`. */
  readonly endpoint: string;
  /** Is the DNS API reachable, is the zone there? Changes nothing, never throws. */
  readiness(o?: CallOptions): Promise<Readiness>;
  upsertRecords(set: DnsRecordSet, o?: CallOptions): Promise<Change>;
  /** Remove denv's A and AAAA records at `name`; `absent` when there were none. */
  removeRecords(name: string, o?: CallOptions): Promise<Change>;
  /** denv's records in the zone, one set per name (sorted by name, addresses sorted). */
  listRecords(o?: CallOptions): Promise<readonly DnsRecordSet[]>;
}
