/**
 * A service's `health` as Kubernetes probes. Readiness decides when a pod takes traffic (and when
 * a rollout moves on); liveness restarts a stuck container, so it is slower to give up: it waits
 * out the spec's start period, checks every 10 s at most, and fails only after the readiness budget
 * (period × retries), and at least 60 s, of failures.
 *
 *   http    → httpGet on `health.port`, else the first port (no port at all: the spec cannot be planned)
 *   command → exec (`CMD-SHELL` runs in /bin/sh -c, as Docker does)
 *   alive   → tcpSocket on the first port; no port: no probe (the container running is all we know)
 */
import type { HealthSpec } from '../../../../contracts/spec-types.js';

export interface ContainerProbes {
  readonly readinessProbe?: Record<string, unknown>;
  readonly livenessProbe?: Record<string, unknown>;
}

/** Readiness timing when the spec gives none (http, alive). */
const READY_PERIOD_S = 5;
const READY_FAILURES = 3;
const LIVE_MIN_PERIOD_S = 10;
const LIVE_MIN_BUDGET_S = 60;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

interface Timing {
  readonly period: number;
  readonly failures: number;
  readonly timeout: number | null;
  readonly startDelay: number;
}

function pair(handler: Record<string, unknown>, t: Timing): ContainerProbes {
  const timeout = t.timeout === null ? {} : { timeoutSeconds: t.timeout };
  const livePeriod = Math.max(t.period, LIVE_MIN_PERIOD_S);
  const liveFailures = Math.ceil(Math.max(t.period * t.failures, LIVE_MIN_BUDGET_S) / livePeriod);
  return {
    readinessProbe: { ...handler, periodSeconds: t.period, ...timeout, failureThreshold: t.failures },
    livenessProbe: { ...handler, ...(t.startDelay > 0 ? { initialDelaySeconds: t.startDelay } : {}), periodSeconds: livePeriod, ...timeout, failureThreshold: liveFailures },
  };
}

/** Throws when an http check has no port to ask (the caller names the service). */
export function containerProbes(health: HealthSpec, ports: readonly number[]): ContainerProbes {
  const first = ports[0];
  switch (health.kind) {
    case 'http': {
      const port = health.port ?? first;
      if (port === undefined) throw new Error(`its http health check (${health.path}) has no port: list the port in ports or expose, or set x-denv.health.port`);
      return pair({ httpGet: { path: health.path, port } }, { period: READY_PERIOD_S, failures: READY_FAILURES, timeout: seconds(health.timeout_ms), startDelay: 0 });
    }
    case 'command': {
      const command = health.test[0] === 'CMD-SHELL' ? ['/bin/sh', '-c', health.test.slice(1).join(' ')] : [...health.test];
      return pair(
        { exec: { command } },
        { period: seconds(health.interval_ms), failures: Math.max(1, health.retries), timeout: seconds(health.timeout_ms), startDelay: health.start_period_ms > 0 ? seconds(health.start_period_ms) : 0 },
      );
    }
    case 'alive':
      return first === undefined ? {} : pair({ tcpSocket: { port: first } }, { period: READY_PERIOD_S, failures: READY_FAILURES, timeout: null, startDelay: 0 });
  }
}
