/**
 * verify (seed 004, stage 2) for a process service: there is no image to verify; what is signed
 * is the envelope's `process`, checked at admit. This stage reports which key signed it, or why
 * nothing was verified.
 */
import { ok, skipped } from '../../../pipeline/stage-runner.js';
import { adoptedText, type ProcessStage } from '../stage.js';

export const verify: ProcessStage = {
  name: 'verify',
  onFailure: 'fail',
  async run({ service }) {
    if (service.adopted) return skipped(`${adoptedText(service)}: verified when it started`);
    const a = service.admission;
    if (!a || 'refused' in a) return skipped('not admitted');
    if (a.admitted === 'open') return skipped('process_runtime: open: nothing signed to verify');
    if (a.admitted === 'before') return ok('this spec was verified in this env before: it runs again without a new envelope', { spec_digest: a.spec_digest });
    return ok(`signed by ${a.key}`, { key: a.key, nonce: a.nonce, spec_digest: a.spec_digest });
  },
};
