/**
 * `denv deploy`: send a Compose file to `POST /v1/projects/{project}/deploy` (creating the project
 * on first use) and optionally watch the deployment it starts.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Deployment, Env, Project } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { seg, type ApiClient } from '../client.js';
import { readComposeFile } from '../compose-file.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { exitCodeFor, watchDeployment } from '../watch.js';
import { readEnvelopeFiles } from '../envelope-options.js';
import { pendingPlanText } from './env-lifecycle.js';
import { parseTarget, TARGET_FORMS, type DeployTarget } from '../target-option.js';

/** What the deploy route answers (202). */
export interface DeployAnswer {
  readonly deployment: Deployment;
  readonly env: Env;
}

export interface DeployRequest {
  readonly project: string;
  readonly composeDoc: Record<string, unknown>;
  readonly env: string;
  readonly warm?: string;
  /** Signed envelopes, one per image service (`--envelope`, repeatable). */
  readonly envelopes?: readonly unknown[];
  /** Where to place it (`--target`): a host by id or name, or a cloud; absent: the planner chooses. */
  readonly target?: DeployTarget;
}

/** Make sure the project exists: reuse it (by id or name), else create it. Safe to race (409 = exists). */
export async function ensureProject(client: ApiClient, name: string, signal?: AbortSignal): Promise<void> {
  try {
    await client.get<Project>(`/v1/projects/${seg(name)}`, undefined, signal);
    return;
  } catch (err) {
    if (!(err instanceof CliError && err.status === 404)) throw err;
  }
  try {
    await client.post<Project>('/v1/projects', { name }, signal);
  } catch (err) {
    if (!(err instanceof CliError && err.status === 409)) throw err;
  }
}

/** Start a deploy; the deployment is `pending` when this returns. */
export async function startDeploy(client: ApiClient, req: DeployRequest, signal?: AbortSignal): Promise<DeployAnswer> {
  await ensureProject(client, req.project, signal);
  const body: Record<string, unknown> = { compose: req.composeDoc, env: req.env };
  if (req.warm !== undefined) body.warm = req.warm;
  if (req.envelopes && req.envelopes.length > 0) body.envelopes = req.envelopes;
  if (req.target !== undefined) body.target = req.target;
  return client.post<DeployAnswer>(`/v1/projects/${seg(req.project)}/deploy`, body, signal);
}

export function formatStarted(answer: DeployAnswer): string {
  return `deployment ${answer.deployment.id} (${answer.deployment.kind}) started on env ${answer.env.name} (${answer.env.id})`;
}

interface DeployOptions {
  readonly file: string;
  readonly project?: string;
  readonly env: string;
  readonly warm?: string;
  readonly watch?: boolean;
  readonly json?: boolean;
  readonly envelope?: readonly string[];
  readonly target?: DeployTarget;
  readonly profile?: readonly string[];
  /** `--source [ref]`: true without a ref (the project's branch). */
  readonly source?: string | true;
}

/** A source deploy: the project's linked repository at `ref` (default: its branch). */
export function startSourceDeploy(client: ApiClient, req: { project: string; env: string; ref: string | null; warm?: string; target?: DeployTarget }, signal?: AbortSignal): Promise<DeployAnswer> {
  const body: Record<string, unknown> = { source: req.ref === null ? {} : { ref: req.ref }, env: req.env };
  if (req.warm !== undefined) body.warm = req.warm;
  if (req.target !== undefined) body.target = req.target;
  return client.post<DeployAnswer>(`/v1/projects/${seg(req.project)}/deploy`, body, signal);
}

export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description('deploy a Compose file to an environment of a project')
    .option('-f, --file <path>', 'the Compose file', 'compose.yaml')
    .addOption(new Option('--project <name>', "project name or id, created if missing (default: the Compose file's top-level name)").env('DENV_PROJECT'))
    .option('--env <name>', 'environment name', 'production')
    .option('--profile <name>', 'activate a Compose profile (repeatable; default: COMPOSE_PROFILES)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--warm <command>', 'a command run in the first service after it is healthy (the warm phase)')
    .option('--envelope <file>', 'a signed envelope (denv sign) for one image service; repeat for each', (v: string, prev: string[] = []) => [...prev, v])
    .option('--target <target>', `where to deploy: ${TARGET_FORMS} (default: the planner picks a connected host)`, parseTarget)
    .option('--source [ref]', "deploy the project's linked repository (denv project link) at a branch, tag or commit (default: its branch), Compose file included")
    .option('--watch', 'follow the deployment to its end; exit 0 only if it succeeds')
    .option('--json', 'print JSON (the 202 answer, or with --watch the final deployment)')
    .addHelpText(
      'after',
      examples(
        'denv deploy -f compose.yaml --project hello',
        'denv deploy --project shop --source main --watch          # the linked repository at main',
        'denv deploy --project shop --env staging --watch',
        'denv deploy --project shop --target host=web-1 --watch        # or host=<host id>, cloud=<cloud name>',
        'denv deploy --project shop --warm "node scripts/warm.js" --watch --json',
        'denv deploy --project shop --envelope web.envelope.json --envelope api.envelope.json --watch   # signed image services',
        '# working_dir of process services is resolved relative to the Compose file',
      ),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<DeployOptions>(cmd);
      if (opts.source !== undefined) {
        if (!opts.project) throw new CliError('USAGE', 'which project? --source needs --project <name> (or DENV_PROJECT)');
        if (opts.envelope?.length) throw new CliError('USAGE', '--envelope is for Compose deploys of signed images, not --source');
        const answer = await startSourceDeploy(clientFor(cmd), { project: opts.project, env: opts.env, ref: opts.source === true ? null : opts.source, warm: opts.warm, target: opts.target });
        return report(cmd, opts, answer);
      }
      const compose = await readComposeFile(opts.file, { profiles: opts.profile ?? [] });
      // What the loader and denv's rules have to say, before anything is sent (stderr: --json stays parseable).
      for (const w of compose.warnings) process.stderr.write(`warning: ${w}\n`);
      if (compose.ignored.length > 0) process.stderr.write(`ignored (no effect under denv): ${compose.ignored.join(', ')}\n`);
      const fromFile = typeof compose.doc.name === 'string' ? compose.doc.name : undefined;
      const project = opts.project ?? fromFile;
      if (!project) {
        throw new CliError('USAGE', `which project? pass --project <name> (or set DENV_PROJECT, or a top-level name: in ${path.relative('.', compose.path) || compose.path})`);
      }
      const client = clientFor(cmd);
      const envelopes = await readEnvelopeFiles(opts.envelope ?? []);
      const answer = await startDeploy(client, { project, composeDoc: compose.doc, env: opts.env, warm: opts.warm, envelopes, target: opts.target });
      return report(cmd, opts, answer);
    });
}

/** Say the deploy started (or that its plan waits for approval), and follow it with --watch. */
async function report(cmd: Command, opts: DeployOptions, answer: DeployAnswer): Promise<void> {
  const client = clientFor(cmd);
  const waiting = await planAwaitingApproval(client, answer.env.id);
  if (waiting && !opts.json) say(waiting);
  if (!opts.watch) {
    if (opts.json) say(toJson(answer));
    else {
      say(formatStarted(answer));
      say(`follow it:  denv deployment watch ${answer.deployment.id}`);
    }
    return;
  }
  if (!opts.json) say(formatStarted(answer));
  const final = await watchDeployment(client, answer.deployment.id, { json: opts.json });
  process.exitCode = exitCodeFor(final);
}

/** After a deploy request the planner runs within a moment; if the plan then waits for approval,
 *  say so (with the summary and how to approve) instead of watching a deployment that cannot move. */
async function planAwaitingApproval(client: ApiClient, envId: string): Promise<string | null> {
  for (let i = 0; i < 40; i++) {
    const env = await client.get<Env>(`/v1/envs/${seg(envId)}`);
    if (env.status !== 'planning') return pendingPlanText(client, env);
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}
