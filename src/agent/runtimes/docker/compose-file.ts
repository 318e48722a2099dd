/**
 * The Compose file of one slot (pure; tested on its exact text). One service, and only what denv
 * controls: the image pinned by digest, the agent-owned environment (PORT, DENV_*), the env file
 * holding the signed values, networking, dataset mounts, a healthcheck when the spec has one.
 *
 * Written in Compose file format 2.4, which both Compose v1 (Debian 12) and v2 read. `init: true`
 * puts docker-init in front of the app as PID 1, so SIGTERM stops it promptly (a bare PID 1
 * ignores signals it has no handler for, and every stop would wait for the SIGKILL timeout).
 */
import { stringify } from 'yaml';
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
  /** The slot's host port; the container gets it as PORT. */
  readonly port: number;
  /** bridge only: the container port published on 127.0.0.1:<port> (default: `port`). */
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
}

const duration = (ms: number): string => `${Math.max(0, Math.round(ms))}ms`;

export function buildComposeFile(input: ComposeInput): string {
  const svc: Record<string, unknown> = { image: input.image, init: true, restart: 'unless-stopped', stop_grace_period: `${STOP_TIMEOUT_S}s` };
  if (input.entrypoint) svc.entrypoint = [...input.entrypoint];
  if (input.command) svc.command = [...input.command];
  if (input.workingDir) svc.working_dir = input.workingDir;
  if (input.network === 'host') svc.network_mode = 'host';
  else svc.ports = [`127.0.0.1:${input.port}:${input.containerPort ?? input.port}`];
  if (input.envFile) svc.env_file = [input.envFile];
  svc.environment = { ...sorted(input.environment), PORT: String(input.port) };
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
  const doc = { version: '2.4', services: { [input.service]: escapeDollars(svc) } };
  return `# Written by the denv agent for one slot; rewritten on every deploy.\n${stringify(doc, { lineWidth: 0 })}`;
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
