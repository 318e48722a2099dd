/**
 * From an admitted request to the slot's Compose input and config hash (pure). The container's
 * identity is its image, its env (the env file, by hash) and this config; the env version is not
 * part of it, so redeploying the same digest and env in a new version is a `no_op`.
 */
import { createHash } from 'node:crypto';
import type { HealthSpec, ResourceLimits, RestartPolicy } from '../../contracts/spec.js';
import type { NetworkMode } from '../config/agent-config.js';
import type { ComposeHealthcheck, ComposeInput } from '../runtimes/docker/compose-file.js';
import { slotKey } from '../runtimes/docker/slot.js';
import { containerImageOf, type PipelineRequest, type Target } from './stage.js';

export interface SlotConfig {
  readonly network: NetworkMode;
  /** bridge: the env's network (`denv-<env id>`), joined under the service name. */
  readonly envNetwork: string | null;
  readonly containerPort: number | null;
  /** The siblings' `DENV_<S>_HOST/PORT` (agent-owned variables, not secrets). */
  readonly siblings: Readonly<Record<string, string>>;
  readonly user: string | null;
  readonly restart: RestartPolicy | null;
  readonly stopSignal: string | null;
  readonly stopGraceMs: number | null;
  readonly limits: ResourceLimits | null;
  readonly volumes: readonly { readonly source: string; readonly target: string; readonly read_only: boolean }[];
  readonly entrypoint: readonly string[] | null;
  readonly command: readonly string[] | null;
  readonly workingDir: string | null;
  readonly health: HealthSpec;
  /** Present only when set, so slots deployed before these existed keep their config hash. */
  readonly readOnly?: true;
  readonly tmpfs?: readonly string[];
}

/**
 * Throws when the spec mounts a dataset the request did not prepare. `envNetwork`: the network
 * the slot's scope shares under bridge networking (ignored with host networking).
 * Fields added to ServiceSpec later are read with `?? null`: stored versions may lack them.
 */
export function slotConfigOf(req: PipelineRequest, target: Target, network: NetworkMode, envNetwork: string | null = null): SlotConfig {
  const spec = req.spec;
  const volumes = (target.run.volumes ?? []).map((v) => {
    const dir = req.datasets[v.source];
    if (!dir) throw new Error(`volume "${v.source}" has no dataset on this host`);
    return { source: dir, target: v.target, read_only: v.read_only };
  });
  // Binds, secrets and configs after the datasets (admit decided they may be mounted).
  for (const m of req.fileMounts ?? []) volumes.push({ source: m.source, target: m.target, read_only: m.read_only });
  const limits = spec?.limits ?? null;
  return {
    network,
    envNetwork: network === 'bridge' ? envNetwork : null,
    containerPort: network === 'bridge' ? (spec?.ports[0] ?? null) : null,
    siblings: sortedRecord(req.siblings ?? {}),
    user: target.run.user,
    restart: spec?.restart ?? null,
    stopSignal: spec?.stop_signal ?? null,
    stopGraceMs: spec?.stop_grace_ms ?? null,
    limits: limits && (limits.memory_bytes !== null || limits.cpus !== null || limits.pids !== null) ? limits : null,
    volumes,
    entrypoint: target.run.entrypoint,
    command: target.run.command,
    workingDir: target.run.working_dir,
    // With bridge networking only the published port is reachable from the host: probe that one.
    health: network === 'bridge' && target.health.kind === 'http' ? { ...target.health, port: null } : target.health,
    ...(spec?.read_only ? { readOnly: true as const } : {}),
    ...(spec?.tmpfs && spec.tmpfs.length > 0 ? { tmpfs: [...spec.tmpfs] } : {}),
  };
}

function sortedRecord(rec: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(rec).sort().map((k) => [k, rec[k]!]));
}

export function configHashOf(config: SlotConfig): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(config)).digest('hex')}`;
}

function healthcheckOf(health: HealthSpec): ComposeHealthcheck | null {
  if (health.kind !== 'command') return null;
  const test = health.test[0] === 'CMD-SHELL' ? [...health.test] : ['CMD', ...health.test];
  return { test, interval_ms: health.interval_ms, timeout_ms: health.timeout_ms, retries: health.retries, start_period_ms: health.start_period_ms };
}

export function composeInputOf(req: PipelineRequest, target: Target & { digest: string }, config: SlotConfig, port: number, envFile: string | null, agentTag: string): ComposeInput {
  return {
    service: req.slot.service,
    image: containerImageOf(target),
    network: config.network,
    envNetwork: config.envNetwork,
    port,
    containerPort: config.containerPort,
    envFile,
    environment: { ...config.siblings, DENV_ENV: req.slot.scope, DENV_SERVICE: req.slot.service },
    volumes: config.volumes,
    entrypoint: config.entrypoint,
    command: config.command,
    workingDir: config.workingDir,
    healthcheck: healthcheckOf(config.health),
    labels: { 'dev.denv.agent': agentTag, 'dev.denv.digest': target.digest, 'dev.denv.slot': slotKey(req.slot) },
    user: config.user,
    restart: config.restart,
    stopSignal: config.stopSignal,
    stopGraceMs: config.stopGraceMs,
    limits: config.limits,
    readOnly: config.readOnly ?? false,
    tmpfs: config.tmpfs ?? [],
  };
}

/** The loopback address a healthy slot answers on. */
export const endpointOf = (port: number): string => `http://127.0.0.1:${port}`;
