/**
 * Waiting for one service to become healthy (DESIGN "Contract details"), by its `HealthSpec`:
 *
 *   http     GET http://127.0.0.1:<port ?? PORT><path> answers 2xx, tried every ~100 ms until timeout_ms
 *   command  `test` (argv, the service's cwd and env) exits 0 — Compose semantics: every
 *            interval_ms, each try bounded by timeout_ms, failures during start_period_ms do not
 *            count, `retries` counted failures make it unhealthy
 *   alive    the process is still running after for_ms
 *
 * In every kind, the process exiting first is a *start failure*, not a health failure.
 */
import type { HealthSpec } from '../../contracts/spec.js';
import { ExecError, run } from '../../lib/exec.js';
import type { ServiceExit } from '../runtimes/process/env-state.js';
import { probeHttp } from './http-probe.js';
import { fillArgv } from '../envs/siblings.js';

export interface HealthTarget {
  readonly service: string;
  /** The service's PORT. */
  readonly port: number;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Put before a command check's argv: runs it as the service's user (launch-argv.ts contextArgv). */
  readonly prefix?: readonly string[];
  /** null while the process runs. */
  exitOf(): Promise<ServiceExit | null>;
}

export type HealthVerdict = { readonly ok: true } | { readonly ok: false; readonly outcome: 'start_failed' | 'unhealthy'; readonly message: string };

const SLICE_MS = 100;
const FAST_PROBE_MS = 10;
const MIN_ATTEMPT_MS = 50;
const FAST_PROBE_FOR_MS = 1000;
const HTTP_ATTEMPT_MS = 2000;
/** A step late by more than this means the thread did not run meanwhile. */
const STALL_MS = 500;

export function describeStartExit(service: string, exit: ServiceExit): string {
  if (exit.signal) return `${service} was killed by ${exit.signal} during start`;
  if (exit.code !== null) return `${service} exited with code ${exit.code} during start`;
  return `${service} exited during start`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sleep `ms` in short slices; returns the exit if the process dies meanwhile. */
async function watchFor(ms: number, target: HealthTarget): Promise<ServiceExit | null> {
  const until = Date.now() + ms;
  for (;;) {
    const exit = await target.exitOf();
    if (exit) return exit;
    const left = until - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(SLICE_MS, left));
  }
}

function startFailed(target: HealthTarget, exit: ServiceExit): HealthVerdict {
  return { ok: false, outcome: 'start_failed', message: describeStartExit(target.service, exit) };
}

async function waitHttp(spec: Extract<HealthSpec, { kind: 'http' }>, target: HealthTarget): Promise<HealthVerdict> {
  const port = spec.port ?? target.port;
  const started = Date.now();
  const deadline = started + spec.timeout_ms;
  let last = 'not tried';
  /** Set when a step took far longer than it asks for: the agent was frozen (SIGSTOP, an overloaded host). */
  let stalled = false;
  for (;;) {
    const exit = await target.exitOf();
    if (exit) return startFailed(target, exit);
    const left = deadline - Date.now();
    if (left <= 0) {
      // The time ran out while this thread was not running: the verdict needs a probe made now.
      if (stalled) {
        const probe = await probeHttp(port, spec.path, HTTP_ATTEMPT_MS);
        if (probe.ok) return { ok: true };
        last = probe.detail;
      }
      break;
    }
    // A last attempt squeezed into a few milliseconds would only report its own timeout and hide
    // the answer that matters (the last real failure): stop instead.
    if (left < MIN_ATTEMPT_MS && last !== 'not tried') break;
    const attempt = Math.min(HTTP_ATTEMPT_MS, left);
    const probeStarted = Date.now();
    const probe = await probeHttp(port, spec.path, attempt);
    if (probe.ok) return { ok: true };
    last = probe.detail;
    if (Date.now() - probeStarted > attempt + STALL_MS) stalled = true;
    // Most services answer within a second of starting: probe often then (a refused connect costs
    // well under a millisecond), every SLICE_MS after.
    const pause = Math.min(Date.now() - started < FAST_PROBE_FOR_MS ? FAST_PROBE_MS : SLICE_MS, Math.max(0, deadline - Date.now()));
    const sleptFrom = Date.now();
    const exitAfter = await watchFor(pause, target);
    if (exitAfter) return startFailed(target, exitAfter);
    if (Date.now() - sleptFrom > pause + STALL_MS) stalled = true;
  }
  return { ok: false, outcome: 'unhealthy', message: `${target.service}: GET ${spec.path} did not answer 2xx within ${spec.timeout_ms} ms (last: ${last})` };
}

async function runCheck(test: readonly string[], target: HealthTarget, timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  try {
    // `${DENV_…}` in the test (siblings, datasets) is filled from the service's own environment.
    const argv = [...(target.prefix ?? []), ...(fillArgv(test, target.env) ?? [])];
    const r = await run(argv, { cwd: target.cwd, env: target.env, timeoutMs, maxOutputBytes: 4096 });
    if (r.exitCode === 0) return { ok: true, detail: 'exit 0' };
    const how = r.timedOut ? `timed out after ${timeoutMs} ms` : r.signal ? `killed by ${r.signal}` : `exit ${r.exitCode}`;
    const said = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-1)[0] ?? '';
    return { ok: false, detail: said ? `${how}: ${said}` : how };
  } catch (err) {
    return { ok: false, detail: err instanceof ExecError ? err.message : String(err) };
  }
}

async function waitCommand(spec: Extract<HealthSpec, { kind: 'command' }>, target: HealthTarget): Promise<HealthVerdict> {
  const started = Date.now();
  const allowed = Math.max(1, spec.retries);
  let failures = 0;
  for (;;) {
    const exit = await target.exitOf();
    if (exit) return startFailed(target, exit);
    const check = await runCheck(spec.test, target, spec.timeout_ms);
    if (check.ok) return { ok: true };
    if (Date.now() - started >= spec.start_period_ms) failures++;
    if (failures >= allowed) {
      const exitNow = await target.exitOf();
      if (exitNow) return startFailed(target, exitNow);
      return { ok: false, outcome: 'unhealthy', message: `${target.service}: healthcheck "${spec.test.join(' ')}" failed ${failures} time${failures > 1 ? 's' : ''} (last: ${check.detail})` };
    }
    const exitMeanwhile = await watchFor(spec.interval_ms, target);
    if (exitMeanwhile) return startFailed(target, exitMeanwhile);
  }
}

async function waitAlive(spec: Extract<HealthSpec, { kind: 'alive' }>, target: HealthTarget): Promise<HealthVerdict> {
  const exit = await watchFor(spec.for_ms, target);
  return exit ? startFailed(target, exit) : { ok: true };
}

/**
 * One health check of a service that already runs (the live-status reporter's probe): a single
 * HTTP GET, a single run of the Compose test, or "still alive". No retries: the caller probes
 * again on its next tick.
 */
export async function probeOnce(spec: HealthSpec, target: HealthTarget): Promise<{ ok: boolean; detail: string }> {
  if (await target.exitOf()) return { ok: false, detail: 'not running' };
  if (spec.kind === 'http') return probeHttp(spec.port ?? target.port, spec.path, Math.min(HTTP_ATTEMPT_MS, spec.timeout_ms));
  if (spec.kind === 'command') return runCheck(spec.test, target, spec.timeout_ms);
  return { ok: true, detail: 'running' };
}

export function waitHealthy(spec: HealthSpec, target: HealthTarget): Promise<HealthVerdict> {
  switch (spec.kind) {
    case 'http':
      return waitHttp(spec, target);
    case 'command':
      return waitCommand(spec, target);
    case 'alive':
      return waitAlive(spec, target);
  }
}
