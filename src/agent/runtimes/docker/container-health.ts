/**
 * Health of a slot's container, probed over loopback (seed 004 `health`: the exposure gate).
 *
 *   http     GET http://127.0.0.1:<host port><path> answers 2xx (the process runtime's prober)
 *   command  Docker runs the Compose healthcheck inside the container; we wait for `healthy`
 *   alive    the container is still running after for_ms
 *
 * In every kind the container exiting or restarting first is a *start failure*.
 */
import type { HealthSpec } from '../../../contracts/spec.js';
import type { ServiceExit } from '../process/env-state.js';
import { probeHttp } from '../../health/http-probe.js';
import { waitHealthy, type HealthVerdict } from '../../health/wait-healthy.js';
import type { DockerRuntime } from './docker-runtime.js';
import type { ContainerState } from './engine-api.js';

export interface ContainerTarget {
  readonly docker: DockerRuntime;
  readonly project: string;
  readonly service: string;
  /** The host port the service answers on over loopback. */
  readonly port: number;
}

const POLL_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A container that stopped, or is restarting after a crash, has "exited" for health purposes. */
export function exitOfContainer(c: ContainerState | null): ServiceExit | null {
  if (!c) return { code: null, signal: null };
  if (c.restarting || c.restartCount > 0) return { code: c.exitCode, signal: null };
  if (c.running || c.status === 'created' || c.status === 'paused') return null;
  return { code: c.exitCode, signal: null };
}

/** The probe port: a health `port` only means something with host networking (bridge publishes one port). */
function probeSpec(spec: HealthSpec, port: number): HealthSpec {
  return spec.kind === 'http' ? { ...spec, port: spec.port ?? port } : spec;
}

export async function waitContainerHealthy(spec: HealthSpec, t: ContainerTarget): Promise<HealthVerdict> {
  const first = await t.docker.container(t.project, t.service);
  if (!first) return { ok: false, outcome: 'start_failed', message: `${t.service}: no container after compose up` };
  const exitOf = async () => exitOfContainer(await t.docker.engine.container(first.id));
  if (spec.kind !== 'command') return waitHealthy(probeSpec(spec, t.port), { service: t.service, port: t.port, cwd: '/', env: {}, exitOf });
  // Docker runs the check; allow what Compose would: start period, then retries of interval + timeout.
  const deadline = Date.now() + spec.start_period_ms + (spec.interval_ms + spec.timeout_ms) * (spec.retries + 1) + 10_000;
  for (;;) {
    const c = await t.docker.engine.container(first.id);
    const exit = exitOfContainer(c);
    if (exit) return { ok: false, outcome: 'start_failed', message: `${t.service} exited${exit.code !== null ? ` with code ${exit.code}` : ''} during start` };
    if (c?.health === 'healthy' || c?.health === null) return { ok: true };
    if (c?.health === 'unhealthy') return { ok: false, outcome: 'unhealthy', message: `${t.service}: healthcheck "${spec.test.join(' ')}" reported unhealthy` };
    if (Date.now() > deadline) return { ok: false, outcome: 'unhealthy', message: `${t.service}: healthcheck still "${c?.health}" after ${spec.start_period_ms + (spec.interval_ms + spec.timeout_ms) * (spec.retries + 1)} ms` };
    await sleep(POLL_MS);
  }
}

/** One quick look (idempotency): is the running container healthy right now? */
export async function healthyNow(spec: HealthSpec, t: ContainerTarget, c: ContainerState): Promise<{ ok: boolean; detail: string }> {
  if (!c.running || c.restarting || c.status === 'paused') return { ok: false, detail: `container is ${c.status}` };
  switch (spec.kind) {
    case 'http': {
      const probe = await probeHttp(spec.port ?? t.port, spec.path, 2000);
      return { ok: probe.ok, detail: `GET ${spec.path}: ${probe.detail}` };
    }
    case 'command':
      return { ok: c.health === 'healthy', detail: `docker health ${c.health ?? 'none'}` };
    case 'alive':
      return { ok: true, detail: 'running' };
  }
}
