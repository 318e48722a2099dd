/**
 * The `none` providers: no proxy, no DNS. Always ready, every call answers without doing
 * anything, so a host without an edge runs the same stages and they report what happened
 * (`unchanged`/`absent`) instead of special cases in the callers. The stages report `skipped`
 * for kind `none` (they know the kind), not these results.
 */
import { change, type Change } from './change.js';
import type { DnsProvider, DnsRecordSet } from './dns-provider.js';
import { normalizeRoute, type ProxyProvider, type ProxyRoute } from './proxy-provider.js';
import type { Readiness } from './readiness.js';
import { addressesByType, checkRouteId, normalizeHostname } from './names.js';

const readiness = (what: string): Readiness => ({ ready: true, provider: 'none', endpoint: 'none', detail: `no ${what} is configured: nothing to check`, facts: {} });

export class NoneProxy implements ProxyProvider {
  readonly kind = 'none' as const;
  readonly endpoint = 'none';
  async readiness(): Promise<Readiness> {
    return readiness('reverse proxy');
  }
  /** Checks the route like any provider, so a bad route fails the same way with or without a proxy. */
  async upsertRoute(route: ProxyRoute): Promise<Change> {
    normalizeRoute(route);
    return change('unchanged');
  }
  async removeRoute(id: string): Promise<Change> {
    checkRouteId(id);
    return change('absent');
  }
  async listRoutes(): Promise<readonly ProxyRoute[]> {
    return [];
  }
}

export class NoneDns implements DnsProvider {
  readonly kind = 'none' as const;
  readonly endpoint = 'none';
  async readiness(): Promise<Readiness> {
    return readiness('DNS provider');
  }
  async upsertRecords(set: DnsRecordSet): Promise<Change> {
    addressesByType(set.addresses, `records of ${normalizeHostname(set.name)}`);
    return change('unchanged');
  }
  async removeRecords(name: string): Promise<Change> {
    normalizeHostname(name);
    return change('absent');
  }
  async listRecords(): Promise<readonly DnsRecordSet[]> {
    return [];
  }
}
