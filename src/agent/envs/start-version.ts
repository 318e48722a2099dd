/**
 * Bring one version of an env up: the code path shared by env.create, env.fork and env.rollback.
 *
 *   datasets → adopt what already serves this version (its own live process, or an identical
 *   service of another version) → each service through seed 004's pipeline, all at once
 *   (process-pipeline/: admit, prepare, start in `depends_on` order, health, persist once every
 *   service is healthy; a failure rolls back what the run started) → the version's answer.
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
import type { PipelineAnswer } from '../../contracts/envelope.js';
import type { EnvCreateResult, ServiceEndpoint } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { DenvError } from '../../contracts/errors.js';
import type { AgentContext } from '../context.js';
import { probeEgress } from '../egress.js';
import { runStageList } from '../pipeline/stage-runner.js';
import { readLogTail } from '../../lib/log-tail.js';
import { serviceKey, type ServiceIdentity } from '../runtimes/process/service-env.js';
import { identicalLiveService } from './process-pipeline/other-copies.js';
import { rollbackService } from './process-pipeline/rollback.js';
import { PROCESS_STAGES } from './process-pipeline/stages/index.js';
import { VersionRun } from './process-pipeline/version-run.js';
import { imageServiceNames, startWithImages } from './start-images.js';
import { findCycle, oneShots } from './start-order.js';
import { stopServices } from './stop-services.js';
import { RUNNING_STATES, summarizeFailures, type VersionRequest } from './version-request.js';

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
  const shots = oneShots(req.services);
  const run = new VersionRun(ctx, req, datasets, shots);
  await adoptRunning(run, Boolean(req.activate));

  // Every service through its pipeline, all at once; they meet where the version needs it (version-run.ts).
  const egress = probeEgress(ctx.control);
  const pipelines: Record<string, PipelineAnswer> = {};
  await Promise.all(
    names.map(async (name) => {
      const service = run.services.get(name)!;
      const result = await runStageList(PROCESS_STAGES, { run, service }, { mode: 'deploy', changed: () => service.owned, rollback: rollbackService });
      run.ended(name, RUNNING_STATES.has(result.state));
      pipelines[name] = { state: result.state, stages: result.stages };
      ctx.log(`deploy ${env}/${version}/${name}: ${result.state} (${result.stages.map((st) => `${st.name} ${st.status}`).join(', ')})${result.error ? ` — ${result.error}` : ''}`);
    }),
  );
  const startedInMs = Date.now() - receivedAt;
  // In the order of the Compose file, whatever order they happened in.
  const failures = [...run.failures].sort((a, b) => names.indexOf(a.service) - names.indexOf(b.service));

  const services: Record<string, { pid: number | null; port: number; log_tail?: string[] }> = {};
  for (const name of names) {
    const service = run.services.get(name)!;
    const rec = ctx.runtime.get(service.id);
    const failed = failures.some((f) => f.service === name);
    const logTail = service.logTail ?? (failed && rec ? await readLogTail(rec.log_path, rec.log_offset) : null);
    services[name] = {
      pid: rec?.pid ?? null,
      port: rec?.port ?? service.plan?.port ?? 0,
      ...(failed && logTail ? { log_tail: logTail } : {}),
    };
  }
  const ordered = Object.fromEntries(names.map((n) => [n, pipelines[n]!]));
  const base = { started_in_ms: startedInMs, datasets: [...req.volumes], egress: await egress, services, pipelines: ordered, ...(Object.keys(run.updates).length > 0 ? { updates: run.updates } : {}) };
  if (failures.length > 0) {
    // Each pipeline rolled back what it started; what is left is the ports of services prepared
    // but never started, and anything a rollback that threw left running.
    const left = [...run.services.values()].filter((service) => service.owned);
    if (left.length > 0) await stopServices(ctx, left.map((service) => service.id));
    for (const service of run.services.values()) if (service.plan && !service.owned) await ctx.ports.release(serviceKey(service.id));
    return { ...base, ...summarizeFailures(failures), healthy_in_ms: null, endpoints: [] };
  }
  const endpoints: ServiceEndpoint[] = names
    .filter((name) => !shots.has(name))
    .map((name) => {
      const port = services[name]!.port;
      return { service: name, url: `http://${ctx.address ?? '127.0.0.1'}:${port}`, port };
    });
  return { ...base, outcome: 'healthy', message: null, healthy_in_ms: Date.now() - receivedAt, endpoints };
}

/**
 * What already runs for the version: each service's own live process (healthy, or still starting
 * from an earlier delivery: then owned, health-checked again), and when activating (rollback,
 * start) an identical live copy of another version, taken over unchanged. A new deploy of the same
 * spec restarts on purpose (files in working_dir may have changed). Copies are taken over all or
 * nothing: a copy keeps the sibling addresses it started with, which hold only if no other service
 * of the version starts anew (on another port); one-shots do not count (nobody connects to them,
 * and they run again).
 */
async function adoptRunning(run: VersionRun, activate: boolean): Promise<void> {
  const { ctx, req } = run;
  const twins = new Map<string, ServiceIdentity>();
  for (const service of run.services.values()) {
    const existing = ctx.runtime.get(service.id);
    if (existing && existing.state !== 'exited' && (await ctx.runtime.isAlive(service.id))) {
      service.adopted = { as: existing.state === 'running' ? 'healthy' : 'starting', from: null };
      service.owned = existing.state !== 'running';
      continue;
    }
    const twin = activate ? await identicalLiveService(ctx, req.env, req.version, service.name, service.spec) : null;
    if (twin) twins.set(service.name, twin);
  }
  const allTwinned = [...run.services.values()].every((s) => run.shots.has(s.name) || s.adopted !== null || twins.has(s.name));
  if (!allTwinned) return;
  for (const [name, twin] of twins) {
    const service = run.services.get(name)!;
    if (await ctx.runtime.adoptAs(twin, req.version)) {
      await ctx.ports.transfer(serviceKey(twin), serviceKey(service.id));
      service.adopted = { as: 'healthy', from: twin.version };
    }
  }
}
