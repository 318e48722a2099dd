/**
 * admit (seed 004, stage 1) for a process service: on a host with `process_runtime: signed`, a
 * trusted key must have signed what runs (admit-process.ts: scope, expiry, nonce, the Compose
 * service against the signed `process`). On an open host everything is admitted. Hard gate.
 */
import { ok, skipped } from '../../../pipeline/stage-runner.js';
import { processAdmission } from '../../admit-process.js';
import { adoptedText, refuse, type ProcessStage } from '../stage.js';

export const admit: ProcessStage = {
  name: 'admit',
  onFailure: 'fail',
  async run(ctx) {
    const { run, service } = ctx;
    if (service.adopted) return skipped(`${adoptedText(service)}: admitted when it started`);
    const { req } = run;
    const relayed = [...(req.envelopes ?? []), ...(req.envelope !== undefined && req.envelope !== null ? [req.envelope] : [])];
    const admission = await processAdmission(run.ctx, { env: req.env, service: service.name, spec: service.spec, envelopes: relayed, names: { project: req.project, env: req.env_name } });
    service.admission = admission;
    if ('refused' in admission) return refuse(ctx, admission.refused);
    if (admission.admitted === 'open') return ok('process_runtime: open: this host runs process services unsigned', { process_runtime: 'open' });
    return ok(admission.admitted === 'signed' ? 'a signed envelope admits it' : 'admitted in this env before', { process_runtime: 'signed', spec_digest: admission.spec_digest });
  },
};
