/** dns (seed 004, stage 9) for a process service: published by the deploy's `ingress` phase, as proxy says. Best effort. */
import { skipped } from '../../../pipeline/stage-runner.js';
import { CONTROL_PLANE_EDGE } from '../../../pipeline/stages/edge-target.js';
import type { ProcessStage } from '../stage.js';

export const dns: ProcessStage = {
  name: 'dns',
  onFailure: 'degrade',
  async run() {
    return skipped(CONTROL_PLANE_EDGE);
  },
};
