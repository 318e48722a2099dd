import type { HostFacts } from '../../../contracts/domain.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { specNeeds, whyNotFit } from './host-fit.js';
import { paramsOf, stateOf } from './state.js';

interface Candidate {
  readonly id: string;
  readonly name: string;
  readonly facts: HostFacts | null;
  readonly drained: boolean;
}

/** Why a drained host is skipped (`denv hosts drain`). */
export const DRAINED = 'drained: it takes no new env';
/** Why a cluster agent is skipped: it runs envs whose target is kubernetes (targets/kubernetes/). */
export const CLUSTER_AGENT = 'a Kubernetes cluster agent: it takes envs whose x-denv.target is kubernetes';
const isClusterAgent = (facts: HostFacts | null) => facts?.runtimes.includes('kubernetes') ?? false;

/** Choose the host (seed 000): the env's own host (drained or not: its envs stay and redeploy
 *  there); else the requested one; else, when a cloud is requested, none (`target <cloud>`:
 *  provision makes one there); else the first connected host of the team (sidecars before provider
 *  hosts, oldest first) that is not drained and can hold the spec's resource limits (host-fit.ts;
 *  the evidence's `skipped` names the others and why); else none (provision decides). When a
 *  connected host refuses the spec and none takes it, the phase fails naming each one's reason;
 *  drained hosts and cluster agents alone never fail it (provision may still make a host). */
export const place: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const { target, spec } = paramsOf(ctx.deployment.params);
    const env = await ctx.env();
    const needs = specNeeds(spec);
    const candidates = async (where: string, params: unknown[]) =>
      ctx.db.query<Candidate>(`select id, name, facts, drained_at is not null as drained from hosts where team = $1 and ${where}`, [ctx.deployment.team, ...params]);
    let host: string | null = null;
    let reason: string;
    const skipped: { host: string; name: string; why: string }[] = [];
    if (env.host) {
      host = env.host;
      reason = 'environment already on host';
    } else if (target?.host) {
      const found = (await candidates("(id = $2 or name = $2) and status <> 'removed'", [target.host]))[0];
      if (!found) throw new PhaseFailed(`no host "${target.host}" in this team`, { host: null, reason: 'requested host not found' });
      if (isClusterAgent(found.facts)) throw new PhaseFailed(`host ${found.name} is ${CLUSTER_AGENT}`, { host: null, reason: 'requested host is a cluster agent' });
      if (found.drained) throw new PhaseFailed(`host ${found.name} is drained: it takes no new env (denv hosts undrain ${found.name})`, { host: null, reason: 'requested host is drained', skipped: [{ host: found.id, name: found.name, why: DRAINED }] });
      const why = whyNotFit(needs, found.facts);
      if (why) throw new PhaseFailed(`host ${found.name} cannot hold this spec: ${why}`, { host: null, reason: 'requested host cannot hold the spec', skipped: [{ host: found.id, name: found.name, why }] });
      host = found.id;
      reason = 'target host requested';
    } else if (target?.cloud) {
      reason = `target ${target.cloud}`;
    } else {
      const connected = await ctx.agents.connectedHosts(ctx.deployment.team);
      const rows = new Map((await candidates('id = any($2)', [connected])).map((c) => [c.id, c]));
      for (const id of connected) {
        const c = rows.get(id);
        const why = !c ? 'gone' : c.drained ? DRAINED : isClusterAgent(c.facts) ? CLUSTER_AGENT : whyNotFit(needs, c.facts);
        if (!why) {
          host = id;
          break;
        }
        skipped.push({ host: id, name: c?.name ?? id, why });
      }
      if (!host && skipped.some((s) => s.why !== DRAINED && s.why !== CLUSTER_AGENT)) {
        throw new PhaseFailed(`no connected host can hold this spec: ${skipped.map((s) => `${s.name}: ${s.why}`).join('; ')}`, { host: null, reason: 'no connected host can hold the spec', skipped });
      }
      reason = host ? 'first connected host in team' : 'no connected host; provisioning';
    }
    state.host = host;
    if (host && host !== env.host) await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [env.id, host]);
    return ok({ host, reason, ...(skipped.length > 0 ? { skipped } : {}) });
  },
};
