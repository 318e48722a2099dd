/** preflight runtime: the docker engine answers and a Compose is installed. Reads only. */
import { failed, ok, type Stage } from '../stage.js';

export const runtime: Stage = {
  name: 'runtime',
  onFailure: 'fail',
  async run({ host }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host (the engine did not answer or no Compose is installed when the agent started)');
    if (!(await docker.ping())) return failed(`the docker engine at ${docker.engine.socketPath} does not answer`);
    return ok(undefined, { engine: docker.engineVersion, compose: `${docker.compose.argv.join(' ')} ${docker.compose.version}`, network: host.config.network });
  },
};
