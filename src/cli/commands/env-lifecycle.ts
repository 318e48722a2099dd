/**
 * Lifecycle actions on an env (seed 002): `denv env approve | replan | stop | start | teardown |
 * separate | delete-record`. Each posts the action and, with `--watch`, follows the deployment it
 * started to its end (exit 0 only if it succeeded). A refused action prints the API's 409, which
 * names the env's status and the actions it allows.
 */
import type { Command } from 'commander';
import type { Deployment, Env } from '../../contracts/domain.js';
import type { ApiClient } from '../client.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { exitCodeFor, watchDeployment } from '../watch.js';
import { ENV_ARG_DESCRIPTION, resolveEnvId } from '../env-ref.js';

interface ActionAnswer {
  readonly deployment: Deployment | null;
  readonly env: Env;
}

interface Plan {
  readonly id: string;
  readonly summary: string;
  readonly status: string;
  readonly guidance: string | null;
}

/** The plan waiting for approval, as a block to print, or null. */
export async function pendingPlanText(client: ApiClient, env: Env): Promise<string | null> {
  if (env.status !== 'awaiting_approval') return null;
  const plans = await client.get<{ items: Plan[] }>(`/v1/envs/${seg(env.id)}/plans`, { limit: 1 });
  const plan = plans.items[0];
  const summary = plan ? plan.summary.split('\n').map((l) => `  ${l}`).join('\n') : '  (no plan recorded)';
  return `plan awaiting approval for env ${env.name} (${env.id}):\n${summary}\napprove it:  denv env approve ${env.id}\nor re-plan:  denv env replan ${env.id} --guidance "…"`;
}

const ACTIONS: readonly { name: string; path: string; description: string }[] = [
  { name: 'approve', path: 'approve', description: 'approve the plan awaiting approval; the deploy then runs' },
  { name: 'replan', path: 'replan', description: 'plan again (from awaiting_approval, failed, running, degraded, stopped)' },
  { name: 'stop', path: 'stop', description: 'scale the env to zero; record, plan and data are kept' },
  { name: 'start', path: 'start', description: 'start a stopped env again with its stored plan' },
  { name: 'teardown', path: 'teardown', description: 'delete what the plan created on the host (terminal: torn_down)' },
  { name: 'separate', path: 'separate', description: 'stop managing the env; the workload keeps running (terminal: separated)' },
];

async function finish(cmd: Command, client: ApiClient, answer: ActionAnswer, opts: { json?: boolean; watch?: boolean }): Promise<void> {
  if (opts.watch && answer.deployment) {
    const final = await watchDeployment(client, answer.deployment.id, { json: opts.json });
    process.exitCode = exitCodeFor(final);
    return;
  }
  if (opts.json) return say(toJson(answer));
  say(`env ${answer.env.name} (${answer.env.id}) is now ${answer.env.status}`);
  if (answer.deployment) say(`${answer.deployment.kind} ${answer.deployment.id}; follow it:  denv deployment watch ${answer.deployment.id}`);
  void cmd;
}

export function registerEnvLifecycle(env: Command): void {
  for (const action of ACTIONS) {
    const sub = env
      .command(action.name)
      .description(action.description)
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .option('--watch', 'follow the deployment the action starts; exit 0 only if it succeeds')
      .option('--json', 'print JSON ({deployment, env}, or with --watch the final deployment)');
    if (action.name === 'replan') sub.option('--guidance <text>', 'extra instructions for the planner, kept in the plan history');
    sub.addHelpText('after', examples(`denv env ${action.name} env_0123abcd${action.name === 'replan' ? ' --guidance "use 2 replicas"' : ''}`, `denv env ${action.name} shop/production --watch`));
    sub.action(async (envId: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean; watch?: boolean; guidance?: string }>(cmd);
      const client = clientFor(cmd);
      const body = action.name === 'replan' && opts.guidance !== undefined ? { guidance: opts.guidance } : {};
      const answer = await client.post<ActionAnswer>(`/v1/envs/${seg(await resolveEnvId(client, envId))}/${action.path}`, body);
      await finish(cmd, client, answer, opts);
    });
  }

  env
    .command('delete-record')
    .description('delete the env record (only from torn_down, separated or failed; events are kept)')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--json', 'print JSON')
    .addHelpText('after', examples('denv env delete-record env_0123abcd', 'denv env delete-record shop/preview'))
    .action(async (envId: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const client = clientFor(cmd);
      const out = await client.delete<{ deleted: string }>(`/v1/envs/${seg(await resolveEnvId(client, envId))}/record`);
      say(opts.json ? toJson(out) : `deleted the record of env ${out.deleted}`);
    });

  env
    .command('plan')
    .description('show the latest plan of an env: summary, status, guidance and the rendered artifact')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--json', 'print the plans as JSON')
    .addHelpText('after', examples('denv env plan env_0123abcd', 'denv env plan shop/production --json'))
    .action(async (envId: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const client = clientFor(cmd);
      const plans = await client.get<{ items: (Plan & { artifact: string })[] }>(`/v1/envs/${seg(await resolveEnvId(client, envId))}/plans`, { limit: 1 });
      if (opts.json) return say(toJson(plans));
      const plan = plans.items[0];
      if (!plan) return say('no plan yet');
      say(`plan ${plan.id} (${plan.status})${plan.guidance ? `\nguidance: ${plan.guidance}` : ''}\n${plan.summary}\n\n${plan.artifact}`);
    });
}
