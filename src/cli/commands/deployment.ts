/** `denv deployment watch <id>` and `denv deployment show <id>`. */
import type { Command } from 'commander';
import type { Deployment } from '../../contracts/domain.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { formatDeploymentDetail } from '../format-deployment.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { exitCodeFor, watchDeployment } from '../watch.js';

export function registerDeployment(program: Command): void {
  const deployment = program
    .command('deployment')
    .description('follow or inspect one deployment (an operation on an env, with its phases)')
    .addHelpText('after', examples('denv deployment watch dep_0123abcd', 'denv deployment show dep_0123abcd --json'));

  deployment
    .command('watch')
    .description('print each phase as it changes until the deployment ends; exit 0 only if it succeeded')
    .argument('<id>', 'deployment id')
    .option('--json', 'print only the final deployment as JSON')
    .addHelpText(
      'after',
      examples(
        'denv deployment watch dep_0123abcd',
        '# phase lines: status (✓ ok, ✗ failed, – skipped, … running), name, duration, evidence',
        'denv deployment watch dep_0123abcd --json | jq .status',
      ),
    )
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const final = await watchDeployment(clientFor(cmd), id, { json: opts.json });
      process.exitCode = exitCodeFor(final);
    });

  deployment
    .command('show')
    .description('print a deployment with all its phases and their evidence')
    .argument('<id>', 'deployment id')
    .option('--json', 'print the deployment as JSON')
    .addHelpText('after', examples('denv deployment show dep_0123abcd', 'denv deployment show dep_0123abcd --json'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const d = await clientFor(cmd).get<Deployment>(`/v1/deployments/${seg(id)}`);
      say(opts.json ? toJson(d) : formatDeploymentDetail(d));
    });
}
