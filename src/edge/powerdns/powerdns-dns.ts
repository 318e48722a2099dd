/**
 * The `powerdns` DNS provider: the PowerDNS Authoritative HTTP API (`X-API-Key`). Each call
 * reads the zone once (`GET …/zones/<zone>`), asks powerdns-rrsets.ts for the changes and sends
 * them as one PATCH, which PowerDNS applies atomically and serves at once. No changes, no PATCH.
 */
import { change, type CallOptions, type Change } from '../change.js';
import type { DnsProvider, DnsRecordSet } from '../dns-provider.js';
import { EdgeError, isEdgeError } from '../edge-error.js';
import { hostOf, requestJson, type HttpEndpoint } from '../http-json.js';
import { addressesByType, inZone, normalizeHostname } from '../names.js';
import type { Readiness } from '../readiness.js';
import { fqdn, planRemove, planUpsert, readRecordSets, type PdnsPlan, type PdnsRRSet } from './powerdns-rrsets.js';

export interface PowerDnsOptions {
  /** The PowerDNS webserver, `http://127.0.0.1:8081`. */
  readonly apiUrl: string;
  readonly apiKey: string;
  /** `example.com` or `example.com.` */
  readonly zone: string;
  /** Default `localhost`. */
  readonly serverId?: string;
  /** TTL of denv's records; default 60 s (short: addresses move with deploys). */
  readonly ttl?: number;
  /** Per HTTP call; default 10 s. */
  readonly timeoutMs?: number;
}

export class PowerDnsProvider implements DnsProvider {
  readonly kind = 'powerdns' as const;
  readonly endpoint: string;
  private readonly api: HttpEndpoint;
  /** Without the trailing dot, lower case. */
  private readonly zone: string;
  private readonly serverPath: string;
  private readonly ttl: number;

  constructor(o: PowerDnsOptions) {
    this.api = { baseUrl: o.apiUrl, label: `powerdns API at ${hostOf(o.apiUrl)}`, headers: { 'x-api-key': o.apiKey }, timeoutMs: o.timeoutMs ?? 10_000, secrets: [o.apiKey] };
    this.endpoint = this.api.label;
    this.zone = o.zone.toLowerCase().replace(/\.$/, '');
    this.serverPath = `/api/v1/servers/${encodeURIComponent(o.serverId ?? 'localhost')}`;
    this.ttl = o.ttl ?? 60;
  }

  async readiness(o: CallOptions = {}): Promise<Readiness> {
    const base = { provider: this.kind, endpoint: this.api.label };
    try {
      const server = (await requestJson(this.api, { method: 'GET', path: this.serverPath, signal: o.signal })).body as { version?: unknown; daemon_type?: unknown } | null;
      const records = readRecordSets(await this.readZone(o)).length;
      const version = typeof server?.version === 'string' ? server.version : null;
      return { ...base, ready: true, detail: `PowerDNS ${version ?? '(version unknown)'}, zone ${fqdn(this.zone)} present, ${records} denv name(s)`, facts: { version, zone: fqdn(this.zone), records } };
    } catch (err) {
      return { ...base, ready: false, detail: isEdgeError(err) ? err.message : String(err), facts: {} };
    }
  }

  async upsertRecords(set: DnsRecordSet, o: CallOptions = {}): Promise<Change> {
    const name = this.nameInZone(set.name);
    const want = addressesByType(set.addresses, `records of ${name}`);
    const plan = planUpsert(await this.readZone(o), name, want, this.ttl);
    return this.apply(plan, plan.existed ? 'updated' : 'created', o);
  }

  async removeRecords(name: string, o: CallOptions = {}): Promise<Change> {
    const plan = planRemove(await this.readZone(o), this.nameInZone(name));
    return this.apply(plan, 'removed', o);
  }

  async listRecords(o: CallOptions = {}): Promise<readonly DnsRecordSet[]> {
    return readRecordSets(await this.readZone(o));
  }

  private async apply(plan: PdnsPlan, done: 'created' | 'updated' | 'removed', o: CallOptions): Promise<Change> {
    if (plan.changes.length === 0) return change(plan.existed ? 'unchanged' : 'absent');
    await requestJson(this.api, { method: 'PATCH', path: this.zonePath(), body: { rrsets: plan.changes }, signal: o.signal });
    return change(done, plan.changes.map((c) => `${c.type} ${c.name}`));
  }

  private nameInZone(name: string): string {
    const n = normalizeHostname(name);
    if (!inZone(n, this.zone)) throw new EdgeError('invalid', `${n} is not in zone ${fqdn(this.zone)} (the zone configured for powerdns)`);
    return n;
  }

  private zonePath(): string {
    return `${this.serverPath}/zones/${encodeURIComponent(fqdn(this.zone))}`;
  }

  private async readZone(o: CallOptions): Promise<PdnsRRSet[]> {
    const res = await requestJson(this.api, { method: 'GET', path: this.zonePath(), signal: o.signal, accept: [404, 422] });
    if (res.status !== 200) throw new EdgeError('invalid', `${this.api.label}: zone ${fqdn(this.zone)} does not exist (create it in PowerDNS first)`, { status: res.status });
    const rrsets = (res.body as { rrsets?: unknown } | null)?.rrsets;
    if (!Array.isArray(rrsets)) throw new EdgeError('protocol', `${this.api.label}: GET ${this.zonePath()} answered without rrsets: is this the PowerDNS API?`);
    return rrsets as PdnsRRSet[];
  }
}
