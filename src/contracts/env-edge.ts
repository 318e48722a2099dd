/**
 * The `env.edge` command (issue 12): the control plane tells the env's host which routes and DNS
 * names the env should have, with the team's provider settings; the agent applies them through
 * the providers of src/edge/ and answers what each provider did. Provider failures are answers,
 * not command errors: the edge is best effort (DESIGN §8), so the caller decides what a failure
 * means (a degraded env, a retry by the edge sweep).
 *
 * The proxy and the DNS API are reached from the host: a team's `admin_url` such as
 * `http://127.0.0.1:2019` names the Caddy beside each agent, and routes go to the service's port
 * on that host's loopback. DNS names resolve to the host's public address (agent config
 * `public_ip`, else detected).
 */
import type { TlsMode } from '../edge/proxy-provider.js';
import type { DnsSettings, ProxySettings } from './edge-settings.js';

/**
 * A route id: `<scope>.<service>` — the scope is the env id, or `standalone` for standalone
 * deploys — in the characters every provider takes (src/edge/names.ts). The same for every
 * version of the service, so the host's edge relay keys on it.
 */
export const edgeRouteId = (scope: string, service: string) => `${scope}.${service}`.toLowerCase().replace(/[^a-z0-9._-]/g, '-').slice(0, 100);

/** One route the env should have: `hostnames` to `127.0.0.1:<port>` on the host (through the host's edge relay). */
export interface EdgeRouteWant {
  /** `<env id>.<service>`: stable across versions, so a new version's route replaces the old one's upstream in one write. */
  readonly id: string;
  readonly service: string;
  readonly hostnames: readonly string[];
  readonly tls: TlsMode;
  /** The host port the service listens on. */
  readonly port: number;
}

export interface EnvEdgePayload {
  readonly env: string;
  readonly proxy: ProxySettings;
  readonly dns: DnsSettings;
  /** Upserted (idempotent: a route already as wanted is not written). */
  readonly routes: readonly EdgeRouteWant[];
  /** Route ids applied before and no longer wanted. */
  readonly remove_routes: readonly string[];
  /** DNS names published before and no longer wanted. */
  readonly remove_names: readonly string[];
  /**
   * When the control plane read what this payload wants (ms since the epoch). The agent applies
   * an env's payloads in generation order and answers an older one `stale` without touching
   * anything: the edge sweep may have read an env just before a deploy began, and its payload
   * must not undo the deploy's when it reaches the host second.
   */
  readonly generation?: number;
}

export interface EdgeChangeRecord {
  /** Route id (proxy) or DNS name (dns). */
  readonly key: string;
  /** A provider `Change` action: created, updated, unchanged, removed, absent. */
  readonly action: string;
}

export interface EdgeProviderError {
  readonly reason: string;
  readonly retryable: boolean;
  readonly message: string;
}

/**
 *   ok       every upsert and removal was applied (or there was nothing to do)
 *   failed   a call failed: `error` says why; `changes` lists what was applied before it
 *   skipped  the provider is `none`
 *   stale    nothing done: a payload of a later generation was applied already
 */
export interface EdgeProviderOutcome {
  readonly provider: string;
  readonly status: 'ok' | 'failed' | 'skipped' | 'stale';
  /** Where it was asked, without secrets (`caddy admin API at 127.0.0.1:2019`). */
  readonly endpoint: string;
  readonly changes: readonly EdgeChangeRecord[];
  /** Proxy: routes whose relay now sends new connections to another port (the version switch; verdict drains the old one). */
  readonly switched?: readonly { readonly key: string; readonly from: number; readonly to: number }[];
  readonly error?: EdgeProviderError;
}

export interface EnvEdgeResult {
  readonly proxy: EdgeProviderOutcome;
  /** `addresses`: what the names were published as (the host's public address). */
  readonly dns: EdgeProviderOutcome & { readonly addresses: readonly string[] };
}
