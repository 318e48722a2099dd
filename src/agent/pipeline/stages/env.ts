/**
 * env (seed 004, stage 5): write the service's env file — the signed env values — to tmpfs,
 * mode 0600, named by the env's keyed hash. Nothing running changes (the old container keeps its
 * own file), so a failure here is still a hard gate. No value reaches evidence or logs.
 */
import { envFileText } from '../../runtimes/docker/env-files.js';
import { slotFileKey } from '../../runtimes/docker/slot.js';
import { failed, ok, type Stage } from '../stage.js';

export const env: Stage = {
  name: 'env',
  onFailure: 'fail',
  async run({ host, req, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const target = state.target!;
    const keys = Object.keys(target.env).length;
    if (keys === 0) {
      state.envFile = null;
      return ok('no env values', { keys: 0 });
    }
    state.envFile = await host.envFiles.write(slotFileKey(req.slot), state.envHash!, envFileText(target.env, (await docker.compose()).flavor));
    return ok(undefined, { keys, env_hash: state.envHash!.slice(0, 24), tmpfs: true, mode: '0600' });
  },
};
