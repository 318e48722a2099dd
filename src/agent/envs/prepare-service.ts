/**
 * Everything a process service needs before it is spawned (docs/security.md, "On hosts"):
 *
 *   - its user (identity/service-identities.ts);
 *   - its working dir: the env's own `<workloads>/<env>/work`, owned by that user — or a host
 *     path the agent config allows (`allow.paths`), which that user must be able to reach — or,
 *     in a source deploy, the commit's checkout (or a directory in it), or the service's own
 *     built copy of it when it has an `x-denv.build` (source-build.ts);
 *   - the datasets it writes, owned by that user when fresh;
 *   - a PID namespace of its own when it writes a dataset (launch-argv.ts) and the agent can make one;
 *   - its port (the agent's registry).
 *
 * Refusals are AGENT_ERRORs naming the service, the path and what would allow it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PackedTree, ServiceSpec } from '../../contracts/spec.js';
import { writeGrants } from './packed-files.js';
import { allowedPublishedPort } from '../config/agent-config.js';
import { DenvError } from '../../contracts/errors.js';
import type { AgentContext } from '../context.js';
import type { Identity } from '../identity/identity.js';
import { assertReachable, claimDataset, ownDir } from '../identity/ownership.js';
import { serviceKey, type ServiceIdentity } from '../runtimes/process/service-env.js';
import { updateOrder, writesDataset } from './start-order.js';
import { serviceWorkDir } from './env-dirs.js';
import { ensureBuild, type BuildResult } from './source-build.js';

export interface PreparedService {
  readonly identity: Identity | null;
  readonly cwd: string;
  /** `HOME`: the env's own work dir, owned by its user. */
  readonly home: string;
  readonly port: number;
  readonly pidNamespace: boolean;
  /** `DENV_SECRET_*` / `DENV_CONFIG_*` → the files written for it (packed-files.ts). */
  readonly grants: Readonly<Record<string, string>>;
  /** Published on the host port the Compose file names (the host allows it): one copy at a time. */
  readonly fixedPort: boolean;
  /** Its `x-denv.build` in a source deploy: where it ran, whether it was reused (source-build.ts). */
  readonly build: BuildResult | null;
}

export async function prepareService(
  ctx: AgentContext,
  id: ServiceIdentity,
  spec: ServiceSpec,
  datasets: Readonly<Record<string, string>>,
  files?: Readonly<Record<string, PackedTree>>,
  /** A source deploy's checkout of its commit (source-checkout.ts). */
  checkout?: { readonly dir: string; readonly commit: string } | null,
): Promise<PreparedService> {
  const identity = await ctx.identities.forService(id.env, id.service, spec);
  // The service's own dir: its working dir when none is given, and HOME always (the one place its
  // user may write besides datasets). One per service: services of one env may run as different users.
  const home = serviceWorkDir(ctx.workloads, id.env, id.service);
  await ownDir(path.dirname(path.dirname(home)), null, 0o711);
  await ownDir(path.dirname(home), null, 0o711);
  await ownDir(home, identity, 0o750); // its group may read it: the verifier of a grader fork (service-identities.ts)
  let cwd: string;
  let build: BuildResult | null = null;
  if (spec.build_command && !checkout) throw new DenvError('AGENT_ERROR', 'x-denv.build runs only in a source deploy (denv deploy --source): there is no checkout to build in');
  if (checkout && spec.build_command) build = await ensureBuild({ workloads: ctx.workloads, env: id.env, service: id.service, spec, checkout: checkout.dir, commit: checkout.commit, identity, home, ...(ctx.output ? { output: (lines: readonly string[]) => ctx.output!(id.service, lines) } : {}) });
  const tree = build?.dir ?? checkout?.dir ?? null;
  if (tree && (!spec.working_dir || !path.isAbsolute(spec.working_dir))) {
    // A source deploy: no working_dir, or a relative one, is inside the commit's checkout (or the service's build of it).
    cwd = path.resolve(tree, spec.working_dir ?? '.');
    if (cwd !== tree && !cwd.startsWith(`${tree}/`)) throw new DenvError('AGENT_ERROR', `working_dir ${spec.working_dir} leaves the checkout`);
    if (!existsSync(cwd)) throw new DenvError('AGENT_ERROR', `working_dir ${spec.working_dir} is not a directory of the commit's checkout`);
    await assertReachable(path.join(cwd, '.'), identity, 'working_dir');
  } else if (spec.working_dir) {
    if (!path.isAbsolute(spec.working_dir)) throw new DenvError('AGENT_ERROR', `working_dir ${spec.working_dir} must be an absolute path on the host (the CLI resolves a relative one against the Compose file)`);
    cwd = path.resolve(spec.working_dir);
    const own = path.join(ctx.workloads, id.env);
    if (!(cwd === own || cwd.startsWith(`${own}/`)) && !ctx.identities.allowsPath(cwd)) {
      throw new DenvError('AGENT_ERROR', `working_dir ${cwd} is outside this env's own directory; a host path must be allowed in the agent config (allow: {paths: [...]})`);
    }
    await assertReachable(path.join(cwd, '.'), identity, 'working_dir');
  } else cwd = home;
  for (const mount of spec.volumes) {
    const dir = datasets[mount.source];
    if (!dir) continue;
    await assertReachable(dir, identity, `dataset ${mount.source}`);
    if (!mount.read_only) await claimDataset(dir, identity);
  }
  const grants = await writeGrants(ctx.workloads, id, spec, files, identity);
  // A published port the host allows is taken as written; otherwise the agent picks (endpoints say which).
  const fixed = allowedPublishedPort(spec.published, ctx.identities.policy.publishedPorts ?? []);
  let port: number;
  const holder = fixed === null ? undefined : (await ctx.ports.read())[String(fixed)];
  const previous = holder !== undefined && holder !== serviceKey(id) && holder.startsWith(`${id.env}/`) && holder.endsWith(`/${id.service}`);
  if (fixed === null) port = await ctx.ports.allocate(serviceKey(id));
  else if (previous) {
    // Held by another version of this service: a live copy hands it over at start (stop-first,
    // start-version.ts); a dead one's entry is taken now.
    const alive = ctx.runtime.list(id.env).some((r) => serviceKey(r) === holder && r.state !== 'exited');
    port = fixed;
    if (!alive) await ctx.ports.transfer(holder, serviceKey(id));
  } else if (holder !== undefined && !holder.startsWith(`${id.env}/`)) {
    // Another env holds it (this env is a fork, or a second deploy of the app): one copy per host port.
    port = await ctx.ports.allocate(serviceKey(id));
  } else port = await ctx.ports.claim(serviceKey(id), fixed);
  return { identity, cwd, home, port, pidNamespace: ctx.identities.switchUsers && writesDataset(spec), grants, fixedPort: fixed !== null, build };
}

/**
 * The host port process service `id` will listen on, as start-version settles it, for image
 * siblings that must be told before it starts: its live copy's port; the port its old copy holds
 * when it is updated stop-first (or publishes a fixed port), since it takes that port over; else
 * what prepareService will give it (allocate is idempotent per owner).
 */
export async function plannedProcessPort(ctx: AgentContext, id: ServiceIdentity, spec: ServiceSpec): Promise<number> {
  const live = ctx.runtime.get(id);
  if (live && live.state !== 'exited' && (await ctx.runtime.isAlive(id))) return live.port;
  const fixed = allowedPublishedPort(spec.published, ctx.identities.policy.publishedPorts ?? []);
  if (updateOrder(spec) === 'stop-first' || fixed !== null) {
    for (const rec of ctx.runtime.list(id.env).reverse()) {
      if (rec.version !== id.version && rec.service === id.service && rec.state !== 'exited' && (await ctx.runtime.isAlive(rec))) return rec.port;
    }
  }
  if (fixed !== null) {
    const holder = (await ctx.ports.read())[String(fixed)];
    if (holder === undefined || holder === serviceKey(id) || holder.startsWith(`${id.env}/`)) return fixed;
  }
  return ctx.ports.allocate(serviceKey(id));
}
