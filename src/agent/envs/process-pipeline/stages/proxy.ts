/**
 * proxy (seed 004, stage 8) for a process service: a process service is always deployed by the
 * control plane, whose `ingress` phase routes the env's hostnames once the whole version is
 * healthy (env.edge, through the same providers and relay). Best effort.
 */
import { skipped } from '../../../pipeline/stage-runner.js';
import { CONTROL_PLANE_EDGE } from '../../../pipeline/stages/edge-target.js';
import type { ProcessStage } from '../stage.js';

export const proxy: ProcessStage = {
  name: 'proxy',
  onFailure: 'degrade',
  async run() {
    return skipped(CONTROL_PLANE_EDGE);
  },
};
