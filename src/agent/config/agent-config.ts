/**
 * The agent's configuration file (`denv agent --config agent.yaml`, DESIGN "Agent
 * configuration"). It lives on the host and is the only source of trust for signed deploys: the
 * public keys and allowlists here are never taken from the control plane.
 *
 *   name: host-a                      # the host envelopes bind to (default: the machine's hostname)
 *   trusted_keys: [/etc/denv/ci.pub]  # PEM public keys, ECDSA P-256
 *   build_key: /etc/denv/build.pem    # signs images this host builds from source (its .pub among trusted_keys to run them)
 *   allow: {repositories: [...], services: [...]}   # prefixes; absent = nothing allowed for signed deploys
 *   listen: 127.0.0.1:7070            # standalone POST /deploy and /preflight; absent = no listener
 *   datasets: /var/lib/denv/datasets  # dataset root dir
 *   require_signature: true           # image services need a valid envelope (default true)
 *   network: bridge                   # or host (the container shares the host's network and gets PORT)
 *   env_dir: /dev/shm/denv            # tmpfs dir for env files (default: a private dir under /dev/shm)
 *   workloads: /var/lib/denv/work     # services' files: env work dirs, verify copies (default: <data dir>-workloads)
 *   process_runtime: enabled          # disabled: refuse process services; signed: run only those a trusted key signed
 *   run_as_root: false                # allow `user: root` for process services
 *   log_max_bytes: 10485760           # rotate a service's log past this size (one rotated file kept)
 *   allow: {paths: [/srv/apps]}       # host paths process services may use as working_dir
 *   allow: {published_ports: [80, 8000-8099]}   # host ports a Compose `ports: "H:C"` may publish as written
 *   public_ip: [203.0.113.7]          # what DNS names of this host's envs resolve to (default: detected, edge/public-address.ts)
 *   proxy_bind: 127.0.0.1             # where the edge proxy's listeners bind (Caddy; default all interfaces)
 *   edge: {proxy: {provider: caddy, admin_url: …}, dns: {…}, tls: auto}   # standalone deploys' edge (docs/edge.md)
 *
 * Closed schema: an unknown key is refused with its path, so a typo never silently loosens trust.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { dnsSettings, proxySettings } from '../../contracts/edge-settings.js';
import { DenvError } from '../../contracts/errors.js';
import type { DnsConfig, ProxyConfig } from '../../edge/edge-config.js';
import { TLS_MODES, type TlsMode } from '../../edge/proxy-provider.js';
import { parseOrThrow } from '../../contracts/validation.js';
import type { KeyObject } from 'node:crypto';
import { loadSigningKey, loadTrustedKey, type TrustedKey } from '../../lib/envelope-crypto.js';
import type { PortRange } from '../ports.js';

export const NETWORK_MODES = ['bridge', 'host'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

const listenAddress = z.string().regex(/^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|localhost):\d{1,5}$/, 'expected host:port such as 127.0.0.1:7070');

export const agentConfigSchema = z.strictObject({
  name: z.string().min(1).max(253).optional(),
  trusted_keys: z.array(z.string().min(1)).default([]),
  /** A PEM private key (ECDSA P-256) that signs the images a source deploy builds here (envs/sign-built.ts). */
  build_key: z.string().min(1).optional(),
  allow: z
    .strictObject({
      repositories: z.array(z.string()).default([]),
      services: z.array(z.string()).default([]),
      paths: z.array(z.string().startsWith('/', 'expected an absolute path')).default([]),
      published_ports: z.array(z.union([z.number().int().min(1).max(65535), z.string().regex(/^\d{1,5}-\d{1,5}$/, 'expected a port or a range such as 8000-8099')])).default([]),
    })
    .default({ repositories: [], services: [], paths: [], published_ports: [] }),
  listen: listenAddress.optional(),
  datasets: z.string().min(1).optional(),
  require_signature: z.boolean().default(true),
  network: z.enum(NETWORK_MODES).default('bridge'),
  env_dir: z.string().min(1).optional(),
  workloads: z.string().min(1).optional(),
  process_runtime: z.enum(['enabled', 'disabled', 'signed']).default('enabled'),
  run_as_root: z.boolean().default(false),
  /** A service's log file is rotated past this many bytes (default 10 MiB). */
  log_max_bytes: z.number().int().min(4096).optional(),
  /** The addresses DNS records of this host's envs point at: one or a list (IPv4 → A, IPv6 → AAAA). */
  public_ip: z.union([z.ipv4(), z.ipv6(), z.array(z.union([z.ipv4(), z.ipv6()])).min(1).max(8)]).optional(),
  /** The address the edge proxy's listeners bind (Caddy); default all interfaces. */
  proxy_bind: z.union([z.ipv4(), z.ipv6()]).optional(),
  /** Standalone deploys (POST /deploy): the proxy and DNS this host's pipeline uses for an envelope's `edge.hostnames`. Control-plane deploys use the team's (PUT /v1/edge). */
  edge: z.strictObject({ proxy: proxySettings.optional(), dns: dnsSettings.optional(), tls: z.enum(TLS_MODES).default('auto') }).optional(),
});
export type AgentConfigFile = z.infer<typeof agentConfigSchema>;

/** The resolved configuration: paths absolute, keys loaded. */
export interface AgentConfig {
  readonly name: string;
  readonly trustedKeys: readonly TrustedKey[];
  /** Signs images built here from source (null/absent: none; such images then run only where signatures are not required). */
  readonly buildKey?: KeyObject | null;
  readonly allow: { readonly repositories: readonly string[]; readonly services: readonly string[]; readonly paths: readonly string[]; readonly publishedPorts: readonly PortRange[] };
  readonly listen: { readonly host: string; readonly port: number } | null;
  readonly datasets: string | null;
  readonly requireSignature: boolean;
  readonly network: NetworkMode;
  readonly envDir: string | null;
  readonly workloads: string | null;
  readonly processRuntime: ProcessRuntimeMode;
  readonly runAsRoot: boolean;
  readonly logMaxBytes: number | null;
  /** null: detect (edge/public-address.ts). */
  readonly publicIp: readonly string[] | null;
  readonly proxyBind: string | null;
  /** Standalone deploys' providers (agent.yaml `edge`); null: none configured. */
  readonly edge: { readonly proxy: ProxyConfig | null; readonly dns: DnsConfig | null; readonly tls: TlsMode };
}

/** `signed`: a process service starts only from an envelope with `process` that a trusted key signed (envs/admit-process.ts). */
export type ProcessRuntimeMode = 'enabled' | 'disabled' | 'signed';

/** What an agent started without a config file uses: no keys, nothing allowed, signatures required. */
export function defaultAgentConfig(name = os.hostname()): AgentConfig {
  return { name, trustedKeys: [], allow: { repositories: [], services: [], paths: [], publishedPorts: [] }, listen: null, datasets: null, requireSignature: true, network: 'bridge', envDir: null, workloads: null, processRuntime: 'enabled', runAsRoot: false, logMaxBytes: null, publicIp: null, proxyBind: null, edge: { proxy: null, dns: null, tls: 'auto' } };
}

/** `8080` → 8080-8080; `8000-8099` → that range. */
function portRange(v: number | string): PortRange {
  if (typeof v === 'number') return { min: v, max: v };
  const [min, max] = v.split('-').map(Number) as [number, number];
  return { min, max };
}

/** The host port a service asks to publish (its first `ports: "H:C"`) when `allowed` covers it; null otherwise. */
export function allowedPublishedPort(published: readonly { published: number | null }[] | undefined, allowed: readonly PortRange[]): number | null {
  const asked = published?.find((p) => p.published !== null)?.published ?? null;
  return asked !== null && allowed.some((r) => asked >= r.min && asked <= r.max) ? asked : null;
}

/** `127.0.0.1:7070` → {host, port}; `[::1]:7070` → {host: '::1', port}. */
export function parseListen(value: string): { host: string; port: number } {
  const colon = value.lastIndexOf(':');
  const host = value.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(value.slice(colon + 1));
  if (!(port >= 0 && port <= 65535)) throw new DenvError('BAD_REQUEST', `listen: port out of range in "${value}"`);
  return { host, port };
}

/** Validate the parsed YAML and load its keys; relative paths are relative to the file's directory. */
export async function resolveAgentConfig(doc: unknown, baseDir: string): Promise<AgentConfig> {
  const file = parseOrThrow(agentConfigSchema, doc ?? {}, 'BAD_REQUEST', 'agent config');
  const abs = (p: string) => path.resolve(baseDir, p);
  const trustedKeys: TrustedKey[] = [];
  for (const keyPath of file.trusted_keys) {
    let pem: string;
    try {
      pem = await readFile(abs(keyPath), 'utf8');
    } catch (err) {
      throw new DenvError('BAD_REQUEST', `agent config: trusted_keys: cannot read ${abs(keyPath)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    trustedKeys.push(loadTrustedKey(pem, abs(keyPath)));
  }
  let buildKey: KeyObject | null = null;
  if (file.build_key !== undefined) {
    let pem: string;
    try {
      pem = await readFile(abs(file.build_key), 'utf8');
    } catch (err) {
      throw new DenvError('BAD_REQUEST', `agent config: build_key: cannot read ${abs(file.build_key)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    buildKey = loadSigningKey(pem, `agent config: build_key ${abs(file.build_key)}`);
  }
  return {
    name: file.name ?? os.hostname(),
    trustedKeys,
    buildKey,
    allow: { repositories: file.allow.repositories, services: file.allow.services, paths: file.allow.paths.map(abs), publishedPorts: file.allow.published_ports.map(portRange) },
    listen: file.listen ? parseListen(file.listen) : null,
    datasets: file.datasets ? abs(file.datasets) : null,
    requireSignature: file.require_signature,
    network: file.network,
    envDir: file.env_dir ? abs(file.env_dir) : null,
    workloads: file.workloads ? abs(file.workloads) : null,
    processRuntime: file.process_runtime,
    runAsRoot: file.run_as_root,
    logMaxBytes: file.log_max_bytes ?? null,
    publicIp: file.public_ip === undefined ? null : typeof file.public_ip === 'string' ? [file.public_ip] : file.public_ip,
    proxyBind: file.proxy_bind ?? null,
    edge: { proxy: file.edge?.proxy ?? null, dns: file.edge?.dns ?? null, tls: file.edge?.tls ?? 'auto' },
  };
}

/** Read and resolve `agent.yaml`. Throws BAD_REQUEST naming the file and the problem. */
export async function loadAgentConfig(file: string): Promise<AgentConfig> {
  const full = path.resolve(file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (err) {
    throw new DenvError('BAD_REQUEST', `cannot read agent config ${full}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new DenvError('BAD_REQUEST', `agent config ${full}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  return resolveAgentConfig(doc, path.dirname(full));
}
