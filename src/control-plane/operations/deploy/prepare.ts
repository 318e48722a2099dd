import type { EnvCreateResult } from '../../../contracts/protocol.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';
import { paramsOf, stateOf } from './state.js';
import { sourcePayload } from '../source-payload.js';

/** Per service (image or process, DESIGN §7): its terminal state and each stage's status (and detail), seed 004. No stage evidence: it stays on the agent's answer. */
function pipelineEvidence(pipelines: NonNullable<EnvCreateResult['pipelines']>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(pipelines).map(([service, p]) => [service, { state: p.state, stages: p.stages.map((s) => ({ name: s.name, status: s.status, ...(s.detail ? { detail: s.detail } : {}) })) }]),
  );
}

/** A stage's evidence says its x-denv.build ran and failed (agent envs/process-pipeline/stages/env.ts). */
const buildFailed = (evidence: Record<string, unknown> | undefined) => (evidence?.build as { failed?: boolean } | undefined)?.failed === true;

/** Send env.create: the agent prepares datasets, starts the version's services on fresh ports
 *  beside any running version, waits for health and probes egress. Whether the services started
 *  and became healthy is judged by the next two phases from the stored result. */
export const prepare: PhaseDef = {
  name: 'prepare',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const { spec, envelope, envelopes } = paramsOf(ctx.deployment.params);
    const host = await connectedHost(ctx, state.host, 'prepare');
    const signed = [...(envelopes ?? []), ...(envelope ? [envelope] : [])];
    // The names an envelope's `scope` binds to (the agent compares them at admit).
    const names = (
      await ctx.db.query<{ env_name: string; project: string }>('select e.name as env_name, p.name as project from envs e join projects p on p.id = e.project where e.id = $1', [ctx.deployment.env])
    )[0];
    const result = await ctx.call(host, 'env.create', {
      env: ctx.deployment.env,
      version: state.version!,
      services: { ...spec.services },
      volumes: [...spec.volumes],
      retire_others: false,
      ...(spec.files ? { files: spec.files } : {}),
      ...(await sourcePayload(ctx, ctx.deployment.env, spec)),
      ...(signed.length > 0 ? { envelopes: signed } : {}),
      ...(names ? { project: names.project, env_name: names.env_name } : {}),
    });
    state.create = result;
    if (!result) throw new PhaseFailed('agent returned no result');
    // A service whose x-denv.build failed: the version could not be prepared (its output's last lines say why).
    // An image service's docker build that failed: nothing of the version ran (agent envs/start-images.ts).
    const build =
      Object.entries(result.pipelines ?? {}).flatMap(([service, p]) => p.stages.filter((st) => st.status === 'failed' && buildFailed(st.evidence)).map((st) => `${service}: ${st.detail}`))[0] ??
      Object.entries(result.builds ?? {}).flatMap(([service, b]) => (b.failed ? [`${service}: ${b.message}`] : []))[0];
    if (build) throw new PhaseFailed(build, { version: state.version, outcome: result.outcome, ...(result.pipelines ? { pipelines: pipelineEvidence(result.pipelines) } : {}), ...(result.builds ? { builds: result.builds } : {}) });
    return ok({
      version: state.version,
      endpoints: result.endpoints,
      datasets: result.datasets,
      egress: result.egress,
      outcome: result.outcome,
      ...(result.updates ? { updates: result.updates } : {}),
      ...(result.pipelines ? { pipelines: pipelineEvidence(result.pipelines) } : {}),
      ...(result.builds ? { builds: result.builds } : {}),
    });
  },
};
