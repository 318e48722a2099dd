/**
 * `denv env fork | snapshot | rollback | verify | move | destroy <env>`: start the operation (202
 * `{deployment, env}`) and, with `--watch`, follow its phases to the end (exit 0 only if it
 * succeeded) — the same printer as `deployment watch`. `env ls --watch` lives in env.ts.
 */
import type { Command } from 'commander';
import type { Deployment, Env } from '../../contracts/domain.js';
import { seg, type ApiClient } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { exitCodeFor, watchDeployment } from '../watch.js';
import { ENV_ARG_DESCRIPTION, resolveEnvId } from '../env-ref.js';

/** What the operation routes answer (202); `env` is the new env for fork. */
export interface OperationAnswer {
  readonly deployment: Deployment | null;
  readonly env: Env;
}

interface WatchFlags {
  readonly watch?: boolean;
  readonly json?: boolean;
}

/** Print the 202 answer, or follow the deployment with --watch (setting the exit code). */
export async function reportOperation(client: ApiClient, answer: OperationAnswer, opts: WatchFlags): Promise<void> {
  const dep = answer.deployment;
  if (!dep) return say(opts.json ? toJson(answer) : `env ${answer.env.id} is ${answer.env.status}; nothing to run`);
  if (!opts.watch) {
    if (opts.json) return say(toJson(answer));
    say(`deployment ${dep.id} (${dep.kind}) started on env ${answer.env.name} (${answer.env.id})`);
    return say(`follow it:  denv deployment watch ${dep.id}`);
  }
  if (!opts.json) say(`deployment ${dep.id} (${dep.kind}) started on env ${answer.env.name} (${answer.env.id})`);
  const final = await watchDeployment(client, dep.id, { json: opts.json });
  process.exitCode = exitCodeFor(final);
}

/** A rollback target as the API takes it: all digits is a version number, anything else an id. */
export function parseVersionRef(value: string): string | number {
  return /^\d+$/.test(value) ? Number(value) : value;
}

function withWatch(cmd: Command): Command {
  return cmd.option('--watch', 'follow the deployment to its end; exit 0 only if it succeeds').option('--json', 'print JSON (the 202 answer, or with --watch the final deployment)');
}

export function registerEnvOperations(env: Command): void {
  withWatch(
    env
      .command('fork')
      .description("fork the env's current version, data included, into a new env on the same host")
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .option('--name <name>', 'name of the new env (default <env name>-fork-<suffix>)')
      .addHelpText('after', examples('denv env fork env_0123abcd --watch', 'denv env fork shop/production --name try-migration --json')),
  ).action(async (id: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags & { name?: string }>(cmd);
    const client = clientFor(cmd);
    const body = opts.name !== undefined ? { name: opts.name } : {};
    await reportOperation(client, await client.post<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}/fork`, body), opts);
  });

  withWatch(
    env
      .command('move')
      .description('move the env, data included, to another host: snapshot, transfer, start there, switch, remove the old copy')
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .requiredOption('--to <host>', 'the host to move to (id or name, see `denv hosts ls`)')
      .addHelpText('after', examples('denv env move shop/production --to web-2 --watch', 'denv env move env_0123abcd --to host_89abcdef --json')),
  ).action(async (id: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags & { to: string }>(cmd);
    const client = clientFor(cmd);
    await reportOperation(client, await client.post<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}/move`, { to: opts.to }), opts);
  });

  withWatch(
    env
      .command('snapshot')
      .description('snapshot the env (services paused, every dataset snapshotted) as a new version')
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .addHelpText('after', examples('denv env snapshot env_0123abcd --watch', 'denv env snapshot shop/production')),
  ).action(async (id: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags>(cmd);
    const client = clientFor(cmd);
    await reportOperation(client, await client.post<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}/snapshot`, {}), opts);
  });

  withWatch(
    env
      .command('rollback')
      .description('restore the env, data included, to a healthy snapshot version of it')
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .argument('<version>', 'version id, or its number in the env')
      .addHelpText('after', examples('denv env rollback env_0123abcd 2 --watch', 'denv env rollback shop/production ver_4567cdef')),
  ).action(async (id: string, version: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags>(cmd);
    const client = clientFor(cmd);
    await reportOperation(client, await client.post<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}/rollback`, { version: parseVersionRef(version) }), opts);
  });

  withWatch(
    env
      .command('verify')
      .description('freeze the AI agent service, collect its output, and grade it in a fork with the verifier')
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .option('--resume', 'let the agent service run again once captured (default: it stays paused)')
      .addHelpText('after', examples('denv env verify env_0123abcd --watch', 'denv env verify env_0123abcd --watch --json | jq .phases[-1].evidence.reward')),
  ).action(async (id: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags & { resume?: boolean }>(cmd);
    const client = clientFor(cmd);
    await reportOperation(client, await client.post<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}/verify`, { resume: opts.resume === true }), opts);
  });

  withWatch(
    env
      .command('destroy')
      .description('destroy the env: its processes, datasets, snapshots and ports on the host')
      .argument('<env>', ENV_ARG_DESCRIPTION)
      .addHelpText('after', examples('denv env destroy env_0123abcd --watch', 'denv env destroy shop/preview')),
  ).action(async (id: string, _o: unknown, cmd: Command) => {
    const opts = optionsOf<WatchFlags>(cmd);
    const client = clientFor(cmd);
    await reportOperation(client, await client.delete<OperationAnswer>(`/v1/envs/${seg(await resolveEnvId(client, id))}`), opts);
  });
}
