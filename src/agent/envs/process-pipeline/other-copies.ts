/**
 * The copies of a service that other versions of its env run: the one a rollback or start may
 * adopt unchanged, the one a stop-first update replaces and stops.
 */
import { messageOf } from '../../../contracts/errors.js';
import type { ServiceSpec } from '../../../contracts/spec.js';
import type { AgentContext } from '../../context.js';
import type { ServiceIdentity } from '../../runtimes/process/service-env.js';
import { sameSpec } from '../start-order.js';

/** A live service `name` of another version of `env` whose spec is the same as `spec` (adopting it changes nothing). */
export async function identicalLiveService(ctx: AgentContext, env: string, version: string, name: string, spec: ServiceSpec): Promise<ServiceIdentity | null> {
  for (const rec of ctx.runtime.list(env).reverse()) {
    if (rec.version === version || rec.service !== name || rec.state !== 'running') continue;
    if (sameSpec(rec.spec, spec) && (await ctx.runtime.isAlive(rec))) return { env, version: rec.version, service: name };
  }
  return null;
}

/** The live copy of `name` another version of `env` runs (the one a stop-first update replaces), with its port. */
export async function liveOldCopy(ctx: AgentContext, env: string, version: string, name: string): Promise<(ServiceIdentity & { port: number }) | null> {
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
export async function stopOldCopies(ctx: AgentContext, env: string, version: string, name: string): Promise<number | null> {
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
