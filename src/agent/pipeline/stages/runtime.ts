/** preflight runtime: the docker engine answers and a Compose is installed. Reads only. */
import { failed, ok, type Stage } from '../stage.js';

export const runtime: Stage = {
  name: 'runtime',
  onFailure: 'fail',
  async run({ host }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host (the engine did not answer when the agent started)');
    if (!(await docker.ping())) return failed(`the docker engine at ${docker.engine.socketPath} does not answer`);
    const cli = await docker.compose();
    return ok(undefined, { engine: docker.engineVersion, compose: `${cli.argv.join(' ')} ${cli.version}`, network: host.config.network });
  },
};
