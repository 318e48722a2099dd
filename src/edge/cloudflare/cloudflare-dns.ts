/**
 * The `cloudflare` DNS provider, through Cloudflare's official SDK (`cloudflare` on npm, pinned).
 * Contract-tested only, against test/helpers/cloudflare-server.ts, which speaks the v4 endpoints
 * used as Cloudflare documents them; no call reaches Cloudflare in the tests.
 *
 * The SDK is built with everything explicit so nothing in the environment changes where it goes
 * or how it signs in (it would otherwise read CLOUDFLARE_BASE_URL, CLOUDFLARE_API_KEY, …): the
 * base URL (settable: tests, gateways), the token, a per-request timeout, and no retries of its
 * own — a failed call fails now, and the edge sweep tries again later — and its logging off
 * (CLOUDFLARE_LOG=debug would otherwise print requests).
 */
import Cloudflare from 'cloudflare';
import { change, type CallOptions, type Change } from '../change.js';
import type { DnsProvider, DnsRecordSet } from '../dns-provider.js';
import { DENV_RECORD_MARK } from '../dns-provider.js';
import { EdgeError, isEdgeError, redact } from '../edge-error.js';
import { describeNetworkError, hostOf } from '../http-json.js';
import { addressesByType, inZone, normalizeHostname } from '../names.js';
import type { Readiness } from '../readiness.js';
import { isEmpty, planRemove, planUpsert, readRecordSets, type CfPlan, type CfRecord } from './cloudflare-records.js';

export const CLOUDFLARE_API_URL = 'https://api.cloudflare.com/client/v4';

export interface CloudflareDnsOptions {
  readonly apiToken: string;
  readonly zoneId: string;
  /** Default CLOUDFLARE_API_URL. */
  readonly apiUrl?: string;
  /** TTL of denv's records; default 60 s (Cloudflare's minimum for DNS-only records). */
  readonly ttl?: number;
  /** Per request; default 15 s. */
  readonly timeoutMs?: number;
}

export class CloudflareDns implements DnsProvider {
  readonly kind = 'cloudflare' as const;
  private readonly client: Cloudflare;
  /** `cloudflare API at <host>`: how errors and readiness name it. */
  readonly endpoint: string;
  private readonly ttl: number;
  private zoneName: string | null = null;

  constructor(private readonly o: CloudflareDnsOptions) {
    const apiUrl = o.apiUrl ?? CLOUDFLARE_API_URL;
    this.endpoint = `cloudflare API at ${hostOf(apiUrl)}`;
    this.ttl = o.ttl ?? 60;
    this.client = new Cloudflare({ apiToken: o.apiToken, apiKey: null, apiEmail: null, userServiceKey: null, baseURL: apiUrl, timeout: o.timeoutMs ?? 15_000, maxRetries: 0, logLevel: 'off' });
  }

  async readiness(o: CallOptions = {}): Promise<Readiness> {
    const base = { provider: this.kind, endpoint: this.endpoint };
    try {
      const zone = await this.sdk('GET zone', () => this.client.zones.get({ zone_id: this.o.zoneId }, { signal: o.signal }));
      this.zoneName = zone.name.toLowerCase();
      const records = (await this.listRecords(o)).length;
      return { ...base, ready: true, detail: `zone ${zone.name} (${zone.status ?? 'status unknown'}), ${records} denv name(s)`, facts: { zone: zone.name, status: zone.status ?? null, records } };
    } catch (err) {
      return { ...base, ready: false, detail: isEdgeError(err) ? err.message : redact(String(err), [this.o.apiToken]), facts: {} };
    }
  }

  async upsertRecords(set: DnsRecordSet, o: CallOptions = {}): Promise<Change> {
    const name = await this.nameInZone(set.name, o);
    const want = addressesByType(set.addresses, `records of ${name}`);
    const plan = planUpsert(await this.recordsAt(name, o), name, want, this.ttl);
    return this.apply(plan, plan.existed ? 'updated' : 'created', o);
  }

  async removeRecords(name: string, o: CallOptions = {}): Promise<Change> {
    const n = await this.nameInZone(name, o);
    return this.apply(planRemove(await this.recordsAt(n, o)), 'removed', o);
  }

  async listRecords(o: CallOptions = {}): Promise<readonly DnsRecordSet[]> {
    const all = await this.sdk('list records', async () => {
      const out: CfRecord[] = [];
      for await (const r of this.client.dns.records.list({ zone_id: this.o.zoneId, comment: { exact: DENV_RECORD_MARK }, per_page: 100 }, { signal: o.signal })) out.push(r as CfRecord);
      return out;
    });
    return readRecordSets(all);
  }

  private async apply(plan: CfPlan, done: 'created' | 'updated' | 'removed', o: CallOptions): Promise<Change> {
    if (isEmpty(plan.batch)) return change(plan.existed ? 'unchanged' : 'absent');
    const { deletes, posts } = plan.batch;
    await this.sdk('batch', () =>
      this.client.dns.records.batch({ zone_id: this.o.zoneId, ...(deletes.length ? { deletes: [...deletes] } : {}), ...(posts.length ? { posts: posts.map((p) => ({ ...p })) } : {}) }, { signal: o.signal }),
    );
    return change(done, [...deletes.map((d) => `delete record ${d.id}`), ...posts.map((p) => `${p.type} ${p.name} ${p.content}`)]);
  }

  private async recordsAt(name: string, o: CallOptions): Promise<CfRecord[]> {
    return this.sdk('list records', async () => {
      const out: CfRecord[] = [];
      for await (const r of this.client.dns.records.list({ zone_id: this.o.zoneId, name: { exact: name }, per_page: 100 }, { signal: o.signal })) out.push(r as CfRecord);
      return out;
    });
  }

  /** Cloudflare appends the zone to a name outside it, so names are checked against the zone's name first. */
  private async nameInZone(name: string, o: CallOptions): Promise<string> {
    const n = normalizeHostname(name);
    if (this.zoneName === null) {
      const zone = await this.sdk('GET zone', () => this.client.zones.get({ zone_id: this.o.zoneId }, { signal: o.signal }));
      this.zoneName = zone.name.toLowerCase();
    }
    if (!inZone(n, this.zoneName)) throw new EdgeError('invalid', `${n} is not in zone ${this.zoneName} (the zone configured for cloudflare)`);
    return n;
  }

  /** An SDK call with its errors turned into EdgeErrors (token redacted). */
  private async sdk<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.edgeError(what, err);
    }
  }

  private edgeError(what: string, err: unknown): EdgeError {
    const msg = (text: string) => redact(`${this.endpoint}: ${what}: ${text}`, [this.o.apiToken]);
    if (err instanceof Cloudflare.APIUserAbortError) return new EdgeError('cancelled', msg('cancelled'));
    if (err instanceof Cloudflare.APIConnectionTimeoutError) return new EdgeError('timeout', msg(`timed out after ${this.o.timeoutMs ?? 15_000} ms`));
    if (err instanceof Cloudflare.APIConnectionError) return new EdgeError('unreachable', msg(describeNetworkError(err)));
    if (err instanceof Cloudflare.APIError) {
      const status = err.status ?? null;
      const detail = err.errors?.length ? err.errors.map((e) => `${e.message}${e.code ? ` (${e.code})` : ''}`).join('; ') : err.message;
      return new EdgeError(status === 401 || status === 403 ? 'unauthorized' : 'rejected', msg(`answered ${status ?? '(no status)'}: ${detail}`), { status });
    }
    if (isEdgeError(err)) return err;
    return new EdgeError('protocol', msg(err instanceof Error ? err.message : String(err)));
  }
}
