/**
 * Edge providers (DESIGN §8): reverse proxies and DNS servers behind one interface each.
 * Callers (the pipeline's proxy and dns stages, the preflight, the deploy's ingress phase, the
 * edge sweep, teardown) import from here and build providers with open-providers.ts.
 */
export { change, CHANGE_ACTIONS, type CallOptions, type Change, type ChangeAction } from './change.js';
export { DENV_RECORD_MARK, DNS_KINDS, type DnsKind, type DnsProvider, type DnsRecordSet } from './dns-provider.js';
export { redactDnsConfig, redactProxyConfig, secretsOfDnsConfig, secretsOfProxyConfig, type DnsConfig, type ProxyConfig } from './edge-config.js';
export { EDGE_ERROR_REASONS, EdgeError, isEdgeError, redact, type EdgeErrorReason } from './edge-error.js';
export { NoneDns, NoneProxy } from './none.js';
export { openDnsProvider, openProxyProvider, type ProviderOptions } from './open-providers.js';
export { normalizeRoute, PROXY_KINDS, TLS_MODES, type ProxyKind, type ProxyProvider, type ProxyRoute, type TlsMode, type Upstream } from './proxy-provider.js';
export type { Readiness, ReadinessFact } from './readiness.js';
