/**
 * preflight admit: every admit check and the signature, exactly as a deploy would do them, so a
 * preflight is no anonymous probe — but the nonce is only looked up, never recorded: the same
 * envelope can be deployed after it passes preflight.
 */
import { admitEnvelope } from './admit.js';
import { verifyEnvelope } from './verify.js';
import type { Stage } from '../stage.js';

export const preflightAdmit: Stage = {
  name: 'admit',
  onFailure: 'fail',
  async run(ctx) {
    const admitted = await admitEnvelope(ctx);
    if (admitted.status !== 'ok') return admitted.status === 'skipped' ? { status: 'failed', detail: 'preflight needs a signed envelope' } : admitted;
    const verified = await verifyEnvelope(ctx, false);
    if (verified.status !== 'ok') return verified;
    return { status: 'ok', evidence: { ...admitted.evidence, ...verified.evidence } };
  },
};
