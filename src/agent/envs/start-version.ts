/**
 * Bring one version of an env up: the code path shared by env.create, env.fork and env.rollback.
 *
 *   datasets → adopt what already serves this version (its own live process, or an identical
 *   service of another version) → per remaining service: its user, its dir, its datasets, a port
 *   (prepare-service.ts) → start in `depends_on` order, each health-checked as soon as it starts
 *   (start-order.ts) → mark healthy, or stop what this run started.
 *
 * Idempotent: a service of this version whose process is alive (started by an earlier delivery
 * of the command, or by a previous agent) is adopted, never started twice. Other versions of the
 * env are never touched here — except a service updated stop-first (one that writes a dataset):
 * its old copy is stopped just before the new one starts on the same data, keeping its port, so
 * a failed deploy's rollback brings it back where it was. Retiring the rest is the caller's.
 *
 * Work that ran and failed (spawn failure, exit during start, failed health) is an *outcome* in
 * the result; only what makes the work impossible (a docker service on this host) is thrown.
 */
import type { EnvCreateResult, ServiceEndpoint } from '../../contracts/protocol.js';
import type { PackedTree, ServiceSpec } from '../../contracts/spec.js';
import { DenvError, messageOf } from '../../contracts/errors.js';
import type { AgentContext } from '../context.js';
import { probeEgress } from '../egress.js';
import { waitHealthy, type HealthVerdict } from '../health/wait-healthy.js';
import { readLogTail } from '../runtimes/process/log-tail.js';
import { serviceKey, type ServiceIdentity } from '../runtimes/process/service-env.js';
import { admitProcess } from './admit-process.js';
import { prepareService } from './prepare-service.js';
import { siblingEnvironment, type SiblingAddress } from './siblings.js';
import { imageServiceNames, startWithImages } from './start-images.js';
import { dependenciesOf, findCycle, oneShots, sameSpec, updateOrder } from './start-order.js';
import { stopServices } from './stop-services.js';
import { waitCompleted } from './wait-completed.js';

export interface VersionRequest {
  readonly env: string;
  readonly version: string;
  readonly services: Readonly<Record<string, ServiceSpec>>;
  readonly volumes: readonly string[];
  /** env.create: the envelope the control plane relayed (unvalidated; admit decides). */
  readonly envelope?: unknown;
  /** env.create: one envelope per signed image service (each names its service). */
  readonly envelopes?: readonly unknown[];
  /** env.create: the project and env names (an envelope's `scope` binds to them). */
  readonly project?: string;
  readonly env_name?: string;
  /** env.rollback: image services start the deploy this host verified for the version instead of running the pipeline. */
  readonly activate?: boolean;
  readonly retire_others?: boolean;
  /** Addresses of services started elsewhere in this version (image services), for `DENV_<S>_HOST/PORT`. */
  readonly siblings?: readonly SiblingAddress[];
  /** Secret, config and bind-mounted file contents of the version (Spec.files). */
  readonly files?: Readonly<Record<string, PackedTree>>;
}

type Failure = { readonly service: string; readonly outcome: 'start_failed' | 'unhealthy'; readonly message: string };

/** Throws AGENT_ERROR when a service cannot run on this host at all (an image service needs the docker pipeline). */
export function assertRunnable(services: Readonly<Record<string, ServiceSpec>>, docker = false): void {
  for (const [name, spec] of Object.entries(services)) {
    if (spec.image !== null && docker) continue;
    if (spec.image !== null) throw new DenvError('AGENT_ERROR', `docker runtime not available on this host (service ${name} has an image)`);
    if (!spec.command || spec.command.length === 0) throw new DenvError('AGENT_ERROR', `service ${name} has no image and no command to run`);
  }
  const cycle = findCycle(services);
  if (cycle) throw new DenvError('AGENT_ERROR', `depends_on has a cycle: ${cycle}`);
}

/** The first failure decides the outcome's kind: any start failure makes it `start_failed`. */
export function summarizeFailures(failures: readonly Failure[]): { outcome: 'start_failed' | 'unhealthy'; message: string } {
  return {
    outcome: failures.some((f) => f.outcome === 'start_failed') ? 'start_failed' : 'unhealthy',
    message: failures.map((f) => f.message).join('; '),
  };
}

const CONDITION_TEXT = { service_started: 'did not start', service_healthy: 'did not become healthy', service_completed_successfully: 'did not complete successfully' } as const;

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
  const shots = oneShots(req.services);

  // Adopt what already serves: this version's own live process, or (activating) an identical one of another version.
  const twins = new Map<string, ServiceIdentity>();
  for (const name of names) {
    const existing = ctx.runtime.get(id(name));
    if (existing && existing.state !== 'exited' && (await ctx.runtime.isAlive(id(name)))) {
      if (existing.state === 'running') alreadyHealthy.add(name);
      else owned.add(name);
      continue;
    }
    // Only when activating (rollback, start): a new deploy of the same spec restarts on purpose (files in working_dir may have changed).
    const twin = req.activate ? await identicalLiveService(ctx, env, version, name, req.services[name]!) : null;
    if (twin) twins.set(name, twin);
  }
  // All or nothing: a twin keeps the sibling addresses it started with, which hold only if no
  // other service of the version starts anew (on another port).
  // One-shots do not count: nobody connects to them, and they run again (their own business to be idempotent).
  const allTwinned = names.every((n) => shots.has(n) || alreadyHealthy.has(n) || owned.has(n) || twins.has(n));
  for (const [name, twin] of allTwinned ? twins : new Map<string, ServiceIdentity>()) {
    if (await ctx.runtime.adoptAs(twin, version)) {
      await ctx.ports.transfer(serviceKey(twin), serviceKey(id(name)));
      alreadyHealthy.add(name);
    }
  }

  // Prepare the rest: admission (signed hosts), user, working dir, datasets, port.
  const relayed = [...(req.envelopes ?? []), ...(req.envelope !== undefined && req.envelope !== null ? [req.envelope] : [])];
  const prepared = new Map<string, Awaited<ReturnType<typeof prepareService>>>();
  for (const name of names) {
    if (alreadyHealthy.has(name) || owned.has(name)) continue;
    try {
      // process_runtime: signed — a trusted key must have signed what runs (admit-process.ts).
      const refusal = await admitProcess(ctx, { env, service: name, spec: req.services[name]!, envelopes: relayed, names: { project: req.project, env: req.env_name } });
      if (refusal) throw new DenvError('AGENT_ERROR', refusal);
      prepared.set(name, await prepareService(ctx, id(name), req.services[name]!, datasets, req.files));
    } catch (err) {
      // Any error (a refusal, EACCES, ENOSPC) is this service's start failure: the ports of those
      // prepared before it are given back below with everything else this run took.
      failures.push({ service: name, outcome: 'start_failed', message: `${name}: ${messageOf(err)}` });
    }
  }
  // Stop-first: the new copy takes over the old copy's port, so clients keep their address and the
  // only interruption is the stop-to-healthy window (`updates.<service>.down_ms`).
  const takeover = new Map<string, ServiceIdentity>();
  for (const [name, plan] of prepared) {
    if (updateOrder(req.services[name]!) !== 'stop-first' && !plan.fixedPort) continue;
    const old = await liveOldCopy(ctx, env, version, name);
    if (!old) continue;
    await ctx.ports.release(serviceKey(id(name)));
    prepared.set(name, { ...plan, port: old.port });
    takeover.set(name, old);
  }
  const portOf = (name: string) => ctx.runtime.get(id(name))?.port ?? prepared.get(name)?.port ?? 0;
  const siblings = siblingEnvironment([...names.map((n) => ({ service: n, host: '127.0.0.1', port: portOf(n) })), ...(req.siblings ?? [])]);

  const updates: Record<string, { order: 'stop-first'; down_ms: number }> = {};
  const startedSignals = new Map<string, Promise<boolean>>();
  const runs = new Map<string, Promise<HealthVerdict>>();

  /** Start `name` once its dependencies allow, then wait for its health (or, for a one-shot, its exit 0). */
  const bring = (name: string): Promise<HealthVerdict> => {
    const existing = runs.get(name);
    if (existing) return existing;
    let markStarted!: (ok: boolean) => void;
    startedSignals.set(name, new Promise<boolean>((r) => (markStarted = r)));
    const attempt = async (): Promise<HealthVerdict> => {
      for (const [dep, d] of dependenciesOf(req.services, name)) {
        const ok = d.condition === 'service_started' ? (bring(dep), await startedSignals.get(dep)!) : (await bring(dep)).ok;
        if (!ok && d.required) return { ok: false, outcome: 'start_failed', message: `${name}: not started: ${dep} ${CONDITION_TEXT[d.condition]}` };
      }
      if (alreadyHealthy.has(name)) {
        markStarted(true);
        return { ok: true };
      }
      const plan = prepared.get(name);
      if (!owned.has(name)) {
        if (!plan) return { ok: false, outcome: 'start_failed', message: failures.find((f) => f.service === name)?.message ?? `${name}: not prepared` };
        owned.add(name);
        const stopFirst = updateOrder(req.services[name]!) === 'stop-first' || takeover.has(name);
        const downSince = stopFirst ? await stopOldCopies(ctx, env, version, name) : null;
        const old = takeover.get(name);
        if (old) await ctx.ports.transfer(serviceKey(old), serviceKey(id(name)));
        const started = await ctx.runtime.start({ ...id(name), spec: req.services[name]!, port: plan.port, datasets, identity: plan.identity, pidNamespace: plan.pidNamespace, siblings: { ...siblings, ...plan.grants }, cwd: plan.cwd, home: plan.home });
        if (!started.ok) return { ok: false, outcome: 'start_failed', message: `${name}: ${started.message}` };
        markStarted(true);
        const verdict = await healthOf(name);
        if (verdict.ok && downSince !== null) updates[name] = { order: 'stop-first', down_ms: Date.now() - downSince };
        return verdict;
      }
      markStarted(true);
      return await healthOf(name);
    };
    const run = (async (): Promise<HealthVerdict> => {
      try {
        return await attempt();
      } catch (err) {
        // Never a rejection: Promise.all below must see every service settle, so cleanup covers all.
        return { ok: false, outcome: 'start_failed', message: `${name}: ${messageOf(err)}` };
      } finally {
        markStarted(false); // no effect once resolved
      }
    })();
    runs.set(name, run);
    return run;
  };

  const healthOf = (name: string): Promise<HealthVerdict> => {
    const rec = ctx.runtime.get(id(name))!;
    const { cwd, env: environment, prefix } = ctx.runtime.contextOf(rec);
    const target = { service: name, port: rec.port, cwd, env: environment, prefix, exitOf: () => ctx.runtime.exitOf(id(name)) };
    return shots.has(name) ? waitCompleted(target) : waitHealthy(req.services[name]!.health, target);
  };

  const egress = probeEgress(ctx.control);
  let startedInMs = 0;
  if (failures.length === 0) {
    const verdicts = await Promise.all(names.map((name) => bring(name)));
    startedInMs = Date.now() - receivedAt;
    verdicts.forEach((v, i) => {
      if (!v.ok) failures.push({ service: names[i]!, outcome: v.outcome, message: v.message });
    });
  } else startedInMs = Date.now() - receivedAt;

  const services: Record<string, { pid: number | null; port: number; log_tail?: string[] }> = {};
  for (const name of names) {
    const rec = ctx.runtime.get(id(name));
    const failed = failures.some((f) => f.service === name);
    services[name] = {
      pid: rec?.pid ?? null,
      port: rec?.port ?? prepared.get(name)?.port ?? 0,
      ...(failed && rec ? { log_tail: await readLogTail(rec.log_path, rec.log_offset) } : {}),
    };
  }

  const base = { started_in_ms: startedInMs, datasets: [...req.volumes], egress: await egress, services, ...(Object.keys(updates).length > 0 ? { updates } : {}) };
  if (failures.length > 0) {
    // A stop-first service took its old copy's port: give it back, so the rollback to the old
    // version brings it back where it was.
    for (const [name, old] of takeover) if (owned.has(name)) await ctx.ports.transfer(serviceKey(id(name)), serviceKey(old));
    await stopServices(ctx, [...owned].map(id));
    // Ports prepared for services that never started go back too.
    for (const name of prepared.keys()) if (!owned.has(name)) await ctx.ports.release(serviceKey(id(name)));
    return { ...base, ...summarizeFailures(failures), healthy_in_ms: null, endpoints: [] };
  }
  for (const name of owned) await ctx.runtime.markHealthy(id(name));
  const endpoints: ServiceEndpoint[] = names
    .filter((name) => !shots.has(name))
    .map((name) => {
      const port = services[name]!.port;
      return { service: name, url: `http://127.0.0.1:${port}`, port };
    });
  return { ...base, outcome: 'healthy', message: null, healthy_in_ms: Date.now() - receivedAt, endpoints };
}

/** A live service `name` of another version of `env` whose spec is the same as `spec` (adopting it changes nothing). */
async function identicalLiveService(ctx: AgentContext, env: string, version: string, name: string, spec: ServiceSpec): Promise<ServiceIdentity | null> {
  for (const rec of ctx.runtime.list(env).reverse()) {
    if (rec.version === version || rec.service !== name || rec.state !== 'running') continue;
    if (sameSpec(rec.spec, spec) && (await ctx.runtime.isAlive(rec))) return { env, version: rec.version, service: name };
  }
  return null;
}

/** The live copy of `name` another version of `env` runs (the one a stop-first update replaces), with its port. */
async function liveOldCopy(ctx: AgentContext, env: string, version: string, name: string): Promise<(ServiceIdentity & { port: number }) | null> {
  for (const rec of ctx.runtime.list(env).reverse()) {
    if (rec.version === version || rec.service !== name || rec.state === 'exited') continue;
    if (await ctx.runtime.isAlive(rec)) return { env, version: rec.version, service: name, port: rec.port };
  }
  return null;
}

/**
 * Stop-first: stop the copies of `name` that other versions of `env` run (grace period and stop
 * signal as their spec says), keeping their ports for a rollback. Returns when the service went
 * down (null when nothing was running).
 */
async function stopOldCopies(ctx: AgentContext, env: string, version: string, name: string): Promise<number | null> {
  const olds = ctx.runtime.list(env).filter((r) => r.version !== version && r.service === name && r.state !== 'exited');
  if (olds.length === 0) return null;
  const since = Date.now();
  try {
    await Promise.all(olds.map((r) => ctx.runtime.stop(r)));
  } catch (err) {
    ctx.log(`stop-first of ${env}/${name}: ${messageOf(err)}`);
  }
  return since;
}
