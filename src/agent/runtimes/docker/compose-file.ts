/**
 * The Compose file of one slot (pure; tested on its exact text). One service, and only what denv
 * controls: the image pinned by digest, the agent-owned environment (PORT, DENV_*), the env file
 * holding the signed values, networking, dataset mounts, a healthcheck when the spec has one,
 * and the container's user, limits, stop signal and grace period, restart policy.
 *
 * Networking: with `network: bridge` every slot of an env joins the env's one network (created by
 * the agent beforehand, so `external` here) under its service name as alias — image services reach
 * each other by name, as under Compose — and publishes its container port on 127.0.0.1:<host port>.
 * With `network: host` the container shares the host's network and listens on PORT.
 *
 * Written in Compose file format 2.4, which both Compose v1 (Debian 12) and v2 read. `init: true`
 * puts docker-init in front of the app as PID 1, so SIGTERM stops it promptly (a bare PID 1
 * ignores signals it has no handler for, and every stop would wait for the SIGKILL timeout).
 */
import { stringify } from 'yaml';
import type { ResourceLimits, RestartPolicy } from '../../../contracts/spec.js';
import type { NetworkMode } from '../../config/agent-config.js';
import { STOP_TIMEOUT_S } from './docker-argv.js';

export interface ComposeHealthcheck {
  /** `["CMD", …]` or `["CMD-SHELL", "…"]` (the latter is run by Docker inside the container). */
  readonly test: readonly string[];
  readonly interval_ms: number;
  readonly timeout_ms: number;
  readonly retries: number;
  readonly start_period_ms: number;
}

export interface ComposeInput {
  readonly service: string;
  /** `repo@sha256:…`. */
  readonly image: string;
  readonly network: NetworkMode;
  /** bridge only: the env's network (created by the agent; joined with the service name as alias). */
  readonly envNetwork: string | null;
  /** The slot's host port. */
  readonly port: number;
  /** bridge only: the container port published on 127.0.0.1:<port> (default: `port`); the container gets it as PORT. */
  readonly containerPort: number | null;
  readonly envFile: string | null;
  /** Agent-owned variables (PORT is added here); they win over the env file's. */
  readonly environment: Readonly<Record<string, string>>;
  readonly volumes: readonly { readonly source: string; readonly target: string; readonly read_only: boolean }[];
  readonly entrypoint: readonly string[] | null;
  readonly command: readonly string[] | null;
  readonly workingDir: string | null;
  readonly healthcheck: ComposeHealthcheck | null;
  readonly labels: Readonly<Record<string, string>>;
  /** `user:` as written (`999:999`, `postgres`); null: the image's. */
  readonly user?: string | null;
  /** null: `unless-stopped` (the agent's default: a crashed container comes back, a stopped one stays down). */
  readonly restart?: RestartPolicy | null;
  readonly stopSignal?: string | null;
  /** null: STOP_TIMEOUT_S. */
  readonly stopGraceMs?: number | null;
  readonly limits?: ResourceLimits | null;
  readonly readOnly?: boolean;
  readonly tmpfs?: readonly string[];
}

const duration = (ms: number): string => `${Math.max(0, Math.round(ms))}ms`;

/** The network key inside the slot's Compose file (its real name is `ComposeInput.envNetwork`). */
const ENV_NETWORK_KEY = 'env';

export function buildComposeFile(input: ComposeInput): string {
  const svc: Record<string, unknown> = {
    image: input.image,
    init: true,
    restart: input.restart ?? 'unless-stopped',
    // Whole seconds: the engine's StopTimeout is an integer, and Compose v1 sends `3000ms` as 3.0, which it refuses.
    stop_grace_period: `${input.stopGraceMs != null ? Math.ceil(input.stopGraceMs / 1000) : STOP_TIMEOUT_S}s`,
  };
  if (input.stopSignal) svc.stop_signal = input.stopSignal;
  if (input.user) svc.user = input.user;
  const limits = input.limits;
  if (limits?.memory_bytes != null) {
    svc.mem_limit = limits.memory_bytes;
    // No swap beyond the limit: the limit is what the app gets, and exceeding it is an OOM kill (`OOMKilled`), not slow swapping.
    svc.memswap_limit = limits.memory_bytes;
  }
  if (limits?.cpus != null) svc.cpus = limits.cpus;
  if (limits?.pids != null) svc.pids_limit = limits.pids;
  if (input.entrypoint) svc.entrypoint = [...input.entrypoint];
  if (input.command) svc.command = [...input.command];
  if (input.workingDir) svc.working_dir = input.workingDir;
  if (input.readOnly) svc.read_only = true;
  if (input.tmpfs && input.tmpfs.length > 0) svc.tmpfs = [...input.tmpfs];
  const containerPort = input.network === 'host' ? input.port : (input.containerPort ?? input.port);
  if (input.network === 'host') svc.network_mode = 'host';
  else {
    if (input.envNetwork) svc.networks = { [ENV_NETWORK_KEY]: { aliases: [input.service] } };
    svc.ports = [`127.0.0.1:${input.port}:${containerPort}`];
  }
  if (input.envFile) svc.env_file = [input.envFile];
  svc.environment = { ...sorted(input.environment), PORT: String(containerPort) };
  if (input.volumes.length > 0) {
    svc.volumes = input.volumes.map((v) => {
      if (v.source.includes(':') || v.target.includes(':')) throw new Error(`volume ${v.source}:${v.target}: paths cannot contain ":"`);
      return `${v.source}:${v.target}${v.read_only ? ':ro' : ''}`;
    });
  }
  if (input.healthcheck) {
    const h = input.healthcheck;
    svc.healthcheck = { test: [...h.test], interval: duration(h.interval_ms), timeout: duration(h.timeout_ms), retries: h.retries, start_period: duration(h.start_period_ms) };
  }
  svc.labels = sorted(input.labels);
  const doc: Record<string, unknown> = { version: '2.4', services: { [input.service]: escapeDollars(svc) } };
  if (input.network !== 'host' && input.envNetwork) doc.networks = { [ENV_NETWORK_KEY]: { external: true, name: input.envNetwork } };
  // YAML 1.1 quoting: Compose v1 reads the file with PyYAML (YAML 1.1), where a bare `no`, `on` or
  // `yes` is a boolean — `restart: "no"` and such env values must stay strings.
  return `# Written by the denv agent for one slot; rewritten on every deploy.\n${stringify(doc, { lineWidth: 0, version: '1.1' })}`;
}

/**
 * Compose interpolates `$VAR` in every string of the file from *its own* environment; denv means
 * every value literally (a healthcheck `CMD-SHELL` using `$PORT` must see `$PORT` inside the
 * container), so each `$` is written `$$`.
 */
export function escapeDollars(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$/g, '$$$$');
  if (Array.isArray(value)) return value.map(escapeDollars);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeDollars(v)]));
  return value;
}

function sorted(rec: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(rec).sort().map((k) => [k, rec[k]!]));
}
