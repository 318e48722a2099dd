/**
 * Bring one version of an env up: the code path shared by env.create and env.rollback.
 *
 *   datasets → per service: adopt the live process, or allocate a port and spawn → health of all
 *   services in parallel (with the egress probe) → mark healthy, or stop what this run started.
 *
 * Idempotent: a service of this version whose process is alive (started by an earlier delivery
 * of the command, or by a previous agent) is adopted, never started twice. Other versions of the
 * env are never touched here; retiring them is the caller's decision.
 *
 * Work that ran and failed (spawn failure, exit during start, failed health) is an *outcome* in
 * the result; only what makes the work impossible (a docker service on this host) is thrown.
 */
import type { EnvCreateResult, ServiceEndpoint } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { DenvError } from '../../contracts/errors.js';
import type { AgentContext } from '../context.js';
import { probeEgress } from '../egress.js';
import { waitHealthy, type HealthVerdict } from '../health/wait-healthy.js';
import { readLogTail } from '../runtimes/process/log-tail.js';
import { serviceKey, type ServiceIdentity } from '../runtimes/process/service-env.js';
import { imageServiceNames, startWithImages } from './start-images.js';
import { stopServices } from './stop-services.js';

export interface VersionRequest {
  readonly env: string;
  readonly version: string;
  readonly services: Readonly<Record<string, ServiceSpec>>;
  readonly volumes: readonly string[];
  /** env.create: the envelope the control plane relayed (unvalidated; admit decides). */
  readonly envelope?: unknown;
  /** env.rollback: image services start the deploy this host verified for the version instead of running the pipeline. */
  readonly activate?: boolean;
  readonly retire_others?: boolean;
}

type Failure = { readonly service: string; readonly outcome: 'start_failed' | 'unhealthy'; readonly message: string };

/** Throws AGENT_ERROR when a service cannot run on this host at all (an image service needs the docker pipeline). */
export function assertRunnable(services: Readonly<Record<string, ServiceSpec>>, docker = false): void {
  for (const [name, spec] of Object.entries(services)) {
    if (spec.image !== null && docker) continue;
    if (spec.image !== null) throw new DenvError('AGENT_ERROR', `docker runtime not available on this host (service ${name} has an image)`);
    if (!spec.command || spec.command.length === 0) throw new DenvError('AGENT_ERROR', `service ${name} has no image and no command to run`);
  }
}

/** The first failure decides the outcome's kind: any start failure makes it `start_failed`. */
export function summarizeFailures(failures: readonly Failure[]): { outcome: 'start_failed' | 'unhealthy'; message: string } {
  return {
    outcome: failures.some((f) => f.outcome === 'start_failed') ? 'start_failed' : 'unhealthy',
    message: failures.map((f) => f.message).join('; '),
  };
}

/** `receivedAt`: when the command arrived (Date.now()), the origin of started_in_ms and healthy_in_ms. */
export async function startVersion(ctx: AgentContext, req: VersionRequest, receivedAt: number): Promise<EnvCreateResult> {
  // Image services go through their docker slots (seed 004's pipeline); the rest comes back here.
  const pipeline = ctx.pipeline?.docker ? ctx.pipeline : undefined;
  if (pipeline && imageServiceNames(req.services).length > 0) return startWithImages({ ...ctx, pipeline }, req, receivedAt, (rest) => startVersion(ctx, rest, receivedAt));
  assertRunnable(req.services);
  const { env, version } = req;
  const datasets: Record<string, string> = {};
  for (const volume of req.volumes) datasets[volume] = await ctx.datasets.create(env, volume);

  const names = Object.keys(req.services);
  const id = (service: string): ServiceIdentity => ({ env, version, service });
  /** Services this run is responsible for: spawned now, or adopted but never yet healthy. On failure these are stopped. */
  const owned = new Set<string>();
  const alreadyHealthy = new Set<string>();
  const failures: Failure[] = [];

  for (const name of names) {
    const existing = ctx.runtime.get(id(name));
    if (existing && existing.state !== 'exited' && (await ctx.runtime.isAlive(id(name)))) {
      if (existing.state === 'running') alreadyHealthy.add(name);
      else owned.add(name);
      continue;
    }
    owned.add(name);
    const port = await ctx.ports.allocate(serviceKey(id(name)));
    const started = await ctx.runtime.start({ ...id(name), spec: req.services[name]!, port, datasets });
    if (!started.ok) failures.push({ service: name, outcome: 'start_failed', message: `${name}: ${started.message}` });
  }
  const startedInMs = Date.now() - receivedAt;

  const egress = probeEgress(ctx.control);
  if (failures.length === 0) {
    const verdicts = await Promise.all(
      names.map(async (name): Promise<HealthVerdict> => {
        if (alreadyHealthy.has(name)) return { ok: true };
        const rec = ctx.runtime.get(id(name))!;
        const { cwd, env: environment } = ctx.runtime.contextOf(rec);
        return waitHealthy(req.services[name]!.health, { service: name, port: rec.port, cwd, env: environment, exitOf: () => ctx.runtime.exitOf(id(name)) });
      }),
    );
    verdicts.forEach((v, i) => {
      if (!v.ok) failures.push({ service: names[i]!, outcome: v.outcome, message: v.message });
    });
  }

  const services: Record<string, { pid: number | null; port: number; log_tail?: string[] }> = {};
  for (const name of names) {
    const rec = ctx.runtime.get(id(name));
    const failed = failures.some((f) => f.service === name);
    services[name] = {
      pid: rec?.pid ?? null,
      port: rec?.port ?? 0,
      ...(failed && rec ? { log_tail: await readLogTail(rec.log_path, rec.log_offset) } : {}),
    };
  }

  const base = { started_in_ms: startedInMs, datasets: [...req.volumes], egress: await egress, services };
  if (failures.length > 0) {
    await stopServices(ctx, [...owned].map(id));
    return { ...base, ...summarizeFailures(failures), healthy_in_ms: null, endpoints: [] };
  }
  for (const name of owned) await ctx.runtime.markHealthy(id(name));
  const endpoints: ServiceEndpoint[] = names.map((name) => {
    const port = services[name]!.port;
    return { service: name, url: `http://127.0.0.1:${port}`, port };
  });
  return { ...base, outcome: 'healthy', message: null, healthy_in_ms: Date.now() - receivedAt, endpoints };
}
