/** pull (seed 004, stage 4) for a process service: it runs a command on the host; nothing to pull. */
import { skipped } from '../../../pipeline/stage-runner.js';
import type { ProcessStage } from '../stage.js';

export const pull: ProcessStage = {
  name: 'pull',
  onFailure: 'fail',
  async run() {
    return skipped('a process service runs a command on this host: there is no artifact to pull');
  },
};
