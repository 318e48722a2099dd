/**
 * The uptime probe (seed 002 "Metrics & uptime"): one HTTP GET of a workload's endpoint —
 * `http://127.0.0.1:<port>` at its health path when it has an HTTP health check, `/` otherwise.
 * *Available* means it answered with a status below 500 within the timeout: a 404 is an answer,
 * a refused connection, a timeout or a 5xx is not. Services with no HTTP health check and no
 * declared ports may not speak HTTP at all, so they are not probed.
 */
import type { ServiceSpec } from '../../contracts/spec.js';
import { probeHttp } from '../health/http-probe.js';

export interface Availability {
  readonly up: boolean;
  readonly latency_ms: number | null;
  readonly detail: string;
}

const PROBE_TIMEOUT_MS = 2000;

/** Where to probe, or null when the service is not an HTTP service. Pure. */
export function probeTarget(spec: ServiceSpec, port: number): { port: number; path: string } | null {
  if (spec.health.kind === 'http') return { port: spec.health.port ?? port, path: spec.health.path };
  if (spec.ports.length > 0) return { port, path: '/' };
  return null;
}

export async function probeAvailability(port: number, path: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<Availability> {
  const started = performance.now();
  const r = await probeHttp(port, path, timeoutMs);
  const status = /^HTTP (\d+)$/.exec(r.detail);
  const answered = status !== null;
  const up = answered && Number(status[1]) < 500;
  return { up, latency_ms: answered ? Math.round(performance.now() - started) : null, detail: r.detail };
}
