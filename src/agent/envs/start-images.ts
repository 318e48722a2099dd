/**
 * Image services in env.create and env.rollback (DESIGN §7): each service with an `image` runs
 * through its docker slot — env.create runs seed 004's pipeline per service (with the envelope
 * naming it among those the control plane relayed, if any), env.rollback activates a deploy the
 * host verified before. Before the pipelines run, every service's address is settled (host ports
 * from `ports.json`), so each image service starts knowing its siblings' `DENV_<S>_HOST/PORT`:
 * image siblings by service name at their container port on the env's network (bridge), process
 * siblings at 127.0.0.1 and their host port (siblings.ts).
 * Process services of the same version are then started the usual way (`startVersion` on the
 * rest), and the two halves are reported as one `EnvCreateResult` with `pipelines` per image
 * service.
 *
 * In a source deploy, image services with `build` are built first (image-build.ts), and each
 * pipeline runs its built image; a failed build is the version's failure, before any pipeline.
 *
 * Outcome mapping: a pipeline ending in `failure` (a hard gate: nothing changed) is a
 * `start_failed`; `failure_rolled_back` (health failed, previous restored) is `unhealthy`.
 * If an image service fails, the version's process services are not started.
 */
import { peekEnvelopeService, type PipelineAnswer } from '../../contracts/envelope.js';
import type { EnvCreateResult, ImageBuildReport, ServiceEndpoint } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import type { AgentContext } from '../context.js';
import { probeEgress } from '../egress.js';
import type { PipelineHost } from '../pipeline/pipeline-host.js';
import { answerOf, runPipeline } from '../pipeline/run-pipeline.js';
import { slotPort } from '../pipeline/stages/recreate.js';
import { slotPortOwner } from '../runtimes/docker/slot.js';
import { serviceKey } from '../runtimes/process/service-env.js';
import { DenvError } from '../../contracts/errors.js';
import { fileMounts, type FileMount } from './packed-files.js';
import { plannedProcessPort } from './prepare-service.js';
import { allowedPublishedPort } from '../config/agent-config.js';
import { activateSlot } from './docker-slots.js';
import { dependenciesOf, findCycle } from './start-order.js';
import { siblingEnvironment, type SiblingAddress } from './siblings.js';
import { RUNNING_STATES, summarizeFailures, type Failure, type VersionRequest } from './version-request.js';
import { ensureImageBuild } from './image-build.js';
import { signBuiltImage } from './sign-built.js';
import { ensureCheckout } from './source-checkout.js';
import { needsSourceBuild } from '../../contracts/spec-service.js';
import { messageOf } from '../../contracts/errors.js';
import type { BuiltImage } from '../pipeline/stage.js';

type ServiceReport = { pid: number | null; port: number; log_tail?: string[] };

export function imageServiceNames(services: Readonly<Record<string, ServiceSpec>>): string[] {
  return Object.entries(services)
    .filter(([, spec]) => spec.image !== null)
    .map(([name]) => name);
}

/** The relayed envelope naming `service` (one per image service, `envelopes`; `envelope` is the one-service form), or null. */
export function envelopeFor(req: Pick<VersionRequest, 'envelope' | 'envelopes'>, service: string): unknown {
  const all = [...(req.envelopes ?? []), ...(req.envelope !== undefined && req.envelope !== null ? [req.envelope] : [])];
  return all.find((e) => peekEnvelopeService(e) === service) ?? null;
}

/**
 * `DENV_<S>_HOST/PORT` for the version's image services: image siblings as seen on the env's
 * network (service name, container port = first spec port, else PORT = its host port), or on
 * 127.0.0.1 with host networking; process siblings at 127.0.0.1 and their host port. Allocating
 * here is idempotent per owner: the slot (recreate) and the process start get the same ports.
 */
async function imageSiblings(host: PipelineHost, req: VersionRequest, processPort: (service: string) => Promise<number>): Promise<Record<string, string>> {
  const addresses: SiblingAddress[] = [];
  for (const [service, spec] of Object.entries(req.services)) {
    if (spec.image !== null) {
      const owner = slotPortOwner({ scope: req.env, service });
      // A published port the host allows is taken as written; otherwise the agent picks (endpoints say which).
      const fixed = allowedPublishedPort(spec.published, host.config.allow.publishedPorts);
      const port = fixed !== null ? await host.ports.claim(owner, fixed) : await slotPort(host, owner);
      addresses.push(host.config.network === 'bridge' ? { service, host: service, port: spec.ports[0] ?? port } : { service, host: '127.0.0.1', port });
    } else {
      addresses.push({ service, host: '127.0.0.1', port: await processPort(service) });
    }
  }
  return siblingEnvironment(addresses);
}

interface ImagePart {
  readonly failures: Failure[];
  readonly services: Record<string, ServiceReport>;
  readonly endpoints: ServiceEndpoint[];
  readonly pipelines: Record<string, PipelineAnswer>;
}


/**
 * Run each image service's pipeline, in `depends_on` order among the image services (a service
 * waits for each image dependency's pipeline to end healthy; a required one that does not keeps
 * it from being deployed). Dependencies on process services cannot hold an image back: process
 * services start after every image service.
 */
async function deployImages(
  host: PipelineHost,
  req: VersionRequest,
  names: readonly string[],
  datasets: Record<string, string>,
  mounts: Readonly<Record<string, readonly FileMount[]>>,
  processPort: (service: string) => Promise<number>,
  built: Readonly<Record<string, BuiltImage>>,
): Promise<ImagePart> {
  const part: ImagePart = { failures: [], services: {}, endpoints: [], pipelines: {} };
  const images = Object.fromEntries(names.map((n) => [n, req.services[n]!]));
  const cycle = findCycle(images);
  if (cycle) throw new DenvError('AGENT_ERROR', `depends_on has a cycle: ${cycle}`);
  const siblings = await imageSiblings(host, req, processPort);
  const runs = new Map<string, Promise<boolean>>();
  /** Deploy `name` once its image dependencies are up; resolves whether it runs. */
  const bring = (name: string): Promise<boolean> => {
    const known = runs.get(name);
    if (known) return known;
    const started = deployOne(name);
    runs.set(name, started);
    return started;
  };
  const deployOne = async (name: string): Promise<boolean> => {
    for (const [dep, d] of dependenciesOf(images, name)) {
      if ((await bring(dep)) || !d.required) continue;
      const slot = { scope: req.env, service: name };
      if (!(await host.slots.read(slot))) await host.ports.release(slotPortOwner(slot));
      part.services[name] = { pid: null, port: 0 };
      part.failures.push({ service: name, outcome: 'start_failed', message: `${name}: not deployed: ${dep} did not become healthy (depends_on)` });
      return false;
    }
    const slot = { scope: req.env, service: name };
    const run = await runPipeline(host, {
      mode: 'deploy',
      slot,
      envelope: envelopeFor(req, name) ?? built[name]?.envelope ?? null,
      spec: req.services[name]!,
      datasets,
      version: req.version,
      siblings,
      fileMounts: mounts[name] ?? [],
      names: { ...(req.project !== undefined ? { project: req.project } : {}), ...(req.env_name !== undefined ? { env: req.env_name } : {}) },
      ...(built[name] ? { built: built[name] } : {}),
    });
    // Refused before any effect on a slot that never ran: give back the port reserved above.
    if (run.state === 'failure' && !(await host.slots.read(slot))) await host.ports.release(slotPortOwner(slot));
    part.pipelines[name] = answerOf(run);
    part.services[name] = { pid: null, port: run.port ?? 0, ...(run.logTail ? { log_tail: [...run.logTail] } : {}) };
    if (run.state === 'failure' || run.state === 'failure_rolled_back') {
      part.failures.push({ service: name, outcome: run.state === 'failure' ? 'start_failed' : 'unhealthy', message: `${name}: ${run.error ?? run.state}` });
    } else if (run.endpoint && run.port !== null) {
      part.endpoints.push({ service: name, url: run.endpoint, port: run.port });
    }
    return RUNNING_STATES.has(run.state);
  };
  await Promise.all(names.map(bring));
  return part;
}

/**
 * The images a source deploy builds before any pipeline runs (image-build.ts): every image
 * service with `build`, one at a time. A Compose deploy builds nothing: a service with an image of
 * its own runs that image, one with only `build` is refused (the control plane refuses it first).
 */
async function buildImages(ctx: AgentContext & { readonly pipeline: PipelineHost }, req: VersionRequest, names: readonly string[]): Promise<{ built: Record<string, BuiltImage>; failures: Failure[]; reports: Record<string, ImageBuildReport> }> {
  const built: Record<string, BuiltImage> = {};
  const failures: Failure[] = [];
  const reports: Record<string, ImageBuildReport> = {};
  for (const name of names) {
    const spec = req.services[name]!;
    if (!spec.build) continue;
    if (!req.source) {
      if (needsSourceBuild(name, spec)) failures.push({ service: name, outcome: 'start_failed', message: `${name}: has only build: images are built in a source deploy (denv deploy --source)` });
      continue;
    }
    const docker = ctx.pipeline.docker;
    if (!docker) {
      failures.push({ service: name, outcome: 'start_failed', message: `${name}: build: no docker runtime on this host` });
      continue;
    }
    try {
      const checkout = await ensureCheckout(ctx, req.env, req.source);
      const b: BuiltImage = await ensureImageBuild({ docker, workloads: ctx.workloads, env: req.env, service: name, build: spec.build, checkout, commit: req.source.commit, ...(ctx.output ? { output: (lines: readonly string[]) => ctx.output!(name, lines) } : {}) });
      // A host that requires signatures signs what it built with its own build key (sign-built.ts), if it has one.
      const key = ctx.pipeline.config.requireSignature ? ctx.pipeline.config.buildKey : null;
      built[name] = key ? { ...b, envelope: signBuiltImage(key, { host: ctx.pipeline.config.name, service: name, spec, built: b }) } : b;
      reports[name] = { failed: false, tag: b.tag, image_id: b.image_id, commit: b.commit, cached: b.cached, took_ms: b.took_ms };
    } catch (err) {
      failures.push({ service: name, outcome: 'start_failed', message: `${name}: ${messageOf(err)}` });
      reports[name] = { failed: true, commit: req.source.commit, message: messageOf(err) };
    }
  }
  return { built, failures, reports };
}

async function activateImages(host: PipelineHost, req: VersionRequest, names: readonly string[]): Promise<ImagePart> {
  const part: ImagePart = { failures: [], services: {}, endpoints: [], pipelines: {} };
  await Promise.all(
    names.map(async (name) => {
      const res = await activateSlot(host, { scope: req.env, service: name }, req.version, req.services[name]!);
      part.services[name] = { pid: null, port: res.port };
      if (res.ok) part.endpoints.push({ service: name, url: res.endpoint, port: res.port });
      else part.failures.push({ service: name, outcome: 'start_failed', message: res.message });
    }),
  );
  return part;
}

/**
 * Bring up a version that has image services. `startProcesses` starts the process services (the
 * caller's `startVersion` on the rest of the version). Retiring slots the version does not have
 * is the caller's decision, as for processes (env.create with retire_others, env.rollback).
 */
export async function startWithImages(
  ctx: AgentContext & { readonly pipeline: PipelineHost },
  req: VersionRequest,
  receivedAt: number,
  startProcesses: (req: VersionRequest) => Promise<EnvCreateResult>,
): Promise<EnvCreateResult> {
  const host = ctx.pipeline;
  const names = imageServiceNames(req.services);
  const datasets: Record<string, string> = {};
  for (const volume of req.volumes) datasets[volume] = await ctx.datasets.create(req.env, volume);
  const mounts: Record<string, FileMount[]> = {};
  if (!req.activate) for (const n of names) mounts[n] = await fileMounts(ctx.workloads, { env: req.env, version: req.version, service: n }, req.services[n]!, req.files);
  // The port each process service will listen on, decided the way start-version decides it.
  const processPort = (service: string) => plannedProcessPort(ctx, { env: req.env, version: req.version, service }, req.services[service]!);
  const builds = req.activate ? { built: {}, failures: [], reports: {} } : await buildImages(ctx, req, names);
  const images: ImagePart = req.activate
    ? await activateImages(host, req, names)
    : builds.failures.length > 0
      ? { failures: builds.failures, services: Object.fromEntries(names.map((n) => [n, { pid: null, port: 0 }])), endpoints: [], pipelines: {} }
      : await deployImages(host, req, names, datasets, mounts, processPort, builds.built);
  const processServices = Object.fromEntries(Object.entries(req.services).filter(([name]) => !names.includes(name)));
  const base = { datasets: [...req.volumes], pipelines: images.pipelines, ...(Object.keys(builds.reports).length > 0 ? { builds: builds.reports } : {}) };
  if (images.failures.length > 0 || Object.keys(processServices).length === 0) {
    const egress = await probeEgress(ctx.control);
    const failed = images.failures.length > 0;
    return {
      ...base,
      ...(failed ? summarizeFailures(images.failures) : { outcome: 'healthy' as const, message: null }),
      started_in_ms: Date.now() - receivedAt,
      healthy_in_ms: failed ? null : Date.now() - receivedAt,
      endpoints: failed ? [] : images.endpoints,
      egress,
      services: images.services,
    };
  }
  // Process services reach image siblings on 127.0.0.1 at the published host port.
  const imageAddresses: SiblingAddress[] = names.map((service) => ({ service, host: '127.0.0.1', port: images.services[service]?.port ?? 0 }));
  const rest = await startProcesses({ ...req, services: processServices, siblings: [...(req.siblings ?? []), ...imageAddresses] });
  return {
    ...rest,
    ...base,
    pipelines: { ...images.pipelines, ...rest.pipelines },
    endpoints: rest.outcome === 'healthy' ? [...images.endpoints, ...rest.endpoints] : [],
    services: { ...images.services, ...rest.services },
  };
}
