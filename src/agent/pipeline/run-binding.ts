/**
 * What runs in a container, and who may say so (issue 10 point 2; pure, unit-tested). The settings
 * that decide what runs — entrypoint, command, working dir, user, Docker healthcheck, mounts — come
 * from the Compose file for unsigned deploys. For a signed deploy the envelope's `run` object
 * decides; on a host that requires signatures the unsigned Compose file may only repeat what the
 * envelope says (or leave a setting out, so the image's own applies): a Compose file that sets
 * one differently is refused at admit, naming the setting and never a value.
 */
import type { EnvelopeRun } from '../../contracts/envelope.js';
import { parseDuration } from '../../contracts/duration.js';
import type { HealthSpec, ServiceSpec, VolumeMount } from '../../contracts/spec.js';

export type CommandHealth = Extract<HealthSpec, { kind: 'command' }>;

export interface RunSettings {
  readonly entrypoint: readonly string[] | null;
  readonly command: readonly string[] | null;
  readonly working_dir: string | null;
  readonly user: string | null;
  /** Docker's healthcheck inside the container (null: none from here). */
  readonly healthcheck: CommandHealth | null;
  /** Dataset mounts (null: none said; the envelope's `volumes: []` says "no mounts"). */
  readonly volumes: readonly VolumeMount[] | null;
}

/** The run settings the Compose service sets (null or absent where it sets none). */
export function composeRunOf(spec: ServiceSpec): RunSettings {
  return {
    entrypoint: spec.entrypoint,
    command: spec.command,
    working_dir: spec.working_dir,
    user: spec.user ?? null,
    healthcheck: spec.health.kind === 'command' ? spec.health : null,
    volumes: spec.volumes.length > 0 ? spec.volumes : null,
  };
}

const ms = (v: string | number | undefined, dflt: number): number => (v === undefined ? dflt : (parseDuration(v) ?? dflt));

/** The envelope's `run`, normalised the way the Compose loader normalises the same fields (defaults included). */
export function signedRunOf(run: EnvelopeRun | undefined): RunSettings {
  const h = run?.healthcheck;
  let healthcheck: CommandHealth | null = null;
  if (h) {
    const test = typeof h.test === 'string' ? ['CMD-SHELL', h.test] : h.test[0] === 'CMD' ? h.test.slice(1) : [...h.test];
    healthcheck = { kind: 'command', test, interval_ms: ms(h.interval, 1000), timeout_ms: ms(h.timeout, 30_000), retries: h.retries ?? 3, start_period_ms: ms(h.start_period, 0) };
  }
  return {
    entrypoint: run?.entrypoint ?? null,
    command: run?.command ?? null,
    working_dir: run?.working_dir ?? null,
    user: run?.user ?? null,
    healthcheck,
    volumes: run?.volumes ? run.volumes.map((v) => ({ source: v.source, target: v.target, read_only: v.read_only ?? false })) : null,
  };
}

/** The envelope `run` that says exactly `run` (signedRunOf's inverse); undefined when it sets nothing. */
export function envelopeRunOf(run: RunSettings): EnvelopeRun | undefined {
  const h = run.healthcheck;
  const out: EnvelopeRun = {
    ...(run.entrypoint ? { entrypoint: [...run.entrypoint] } : {}),
    ...(run.command ? { command: [...run.command] } : {}),
    ...(run.working_dir ? { working_dir: run.working_dir } : {}),
    ...(run.user ? { user: run.user } : {}),
    ...(h ? { healthcheck: { test: h.test[0] === 'CMD-SHELL' ? [...h.test] : ['CMD', ...h.test], interval: `${h.interval_ms}ms`, timeout: `${h.timeout_ms}ms`, retries: h.retries, start_period: `${h.start_period_ms}ms` } } : {}),
    ...(run.volumes ? { volumes: run.volumes.map((v) => ({ source: v.source, target: v.target, read_only: v.read_only })) } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

const FIELDS = ['entrypoint', 'command', 'working_dir', 'user', 'healthcheck', 'volumes'] as const satisfies readonly (keyof RunSettings)[];

const canonical = (field: (typeof FIELDS)[number], value: unknown): string =>
  JSON.stringify(field === 'volumes' && Array.isArray(value) ? [...(value as VolumeMount[])].sort((a, b) => a.target.localeCompare(b.target)) : value);

/**
 * On a host that requires signatures: the first setting the Compose service sets differently
 * from the envelope (a setting it leaves out is fine), as a message naming it; null when none.
 */
export function runMismatch(compose: RunSettings, signed: RunSettings): string | null {
  for (const field of FIELDS) {
    const mine = compose[field];
    if (mine === null) continue;
    if (canonical(field, mine) !== canonical(field, signed[field])) {
      return `${field}: the Compose file sets it ${signed[field] === null ? 'and the envelope does not' : 'differently from the envelope'}; on a host that requires signatures what runs comes from the envelope's run (or the image)`;
    }
  }
  return null;
}

/** What the container gets: each setting from the envelope when it says one, else from the Compose file (equal or absent on hosts that require signatures). */
export function effectiveRun(compose: RunSettings, signed: RunSettings | null): RunSettings {
  if (!signed) return compose;
  return {
    entrypoint: signed.entrypoint ?? compose.entrypoint,
    command: signed.command ?? compose.command,
    working_dir: signed.working_dir ?? compose.working_dir,
    user: signed.user ?? compose.user,
    healthcheck: signed.healthcheck ?? compose.healthcheck,
    volumes: signed.volumes ?? compose.volumes,
  };
}
