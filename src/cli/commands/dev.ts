/**
 * `denv dev`: the whole product on one machine. Starts the control plane in this process, one
 * agent as a child process (`bin/denv agent`, enrolled with a fresh single-use key; a second run on
 * the same data dir reuses the agent's saved credential and the key goes unused), deploys the
 * bundled example (`examples/hello`) as project `hello`, env `production`, watching it live, then
 * prints where everything is. Runs until SIGINT/SIGTERM, then stops the agent and the control plane.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import type { Env, Host, Page } from '../../contracts/domain.js';
import { spawnAgentChild, type AgentChild } from '../agent-child.js';
import { CliError } from '../cli-error.js';
import { ApiClient, seg } from '../client.js';
import { readComposeFile } from '../compose-file.js';
import { ADMIN_TOKEN_FILE, DEFAULT_DATA_DIR, DEFAULT_PORT, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatError } from '../output.js';
import { DENV_BIN, EXAMPLE_COMPOSE, PACKAGE_ROOT } from '../paths.js';
import { onShutdown } from '../signals.js';
import { watchDeployment } from '../watch.js';
import { parsePortRange } from './agent.js';
import { startDeploy } from './deploy.js';

const EXAMPLE_PROJECT = 'hello';
const EXAMPLE_ENV = 'production';
/** How long to wait for the local agent before deploying anyway (the deploy then shows why it failed). */
const AGENT_WAIT_MS = 60_000;

interface DevOptions {
  readonly databaseUrl?: string;
  readonly example: boolean;
  readonly agentConfig?: string;
  readonly ports?: { min: number; max: number };
}

export interface BannerInput {
  readonly url: string;
  readonly adminToken: string;
  readonly tokenFile: string;
  /** The example's env after its deploy; null with --no-example or when the deploy did not start. */
  readonly app: Env | null;
  readonly example: boolean;
  /** Flags a client in another terminal needs to reach this control plane (`--port 4700` …). */
  readonly clientFlags: string;
  /** The local agent's name (what signed envelopes bind to) and its host id, null until it has connected. */
  readonly host?: { readonly name: string; readonly id: string | null };
}

/** The flags to add to `denv …` client commands for a non-default port or data dir (pure). */
export function clientFlagsFor(port: number, dataDirArg: string): string {
  const flags: string[] = [];
  if (port !== DEFAULT_PORT) flags.push(`--port ${port}`);
  if (path.resolve(dataDirArg) !== path.resolve(DEFAULT_DATA_DIR)) flags.push(`--data-dir ${dataDirArg}`);
  return flags.length ? ` ${flags.join(' ')}` : '';
}

/** What `denv dev` prints once it is up (pure). */
export function formatBanner(b: BannerInput): string {
  const lines = ['', 'denv is running.', `  UI:   ${b.url}/#token=${b.adminToken}`, `  API:  ${b.url}  (token in ${b.tokenFile})`];
  if (b.host !== undefined) {
    lines.push(`  host: ${b.host.name}  (${b.host.id ?? 'not connected yet'}; signed envelopes bind to this name)`);
  }
  if (b.example) {
    const endpoints = b.app?.endpoints ?? [];
    if (endpoints.length > 0) endpoints.forEach((e) => lines.push(`  app:  ${e.service} → ${e.url}`));
    else lines.push(`  app:  not serving${b.app?.last_error ? ` (${b.app.last_error})` : ''}; see the deployment above`);
  }
  lines.push(
    '',
    'Deploy your own app:',
    `  denv deploy -f compose.yaml --project ${EXAMPLE_PROJECT}${b.clientFlags}`,
    `  denv hosts${b.clientFlags}`,
    '',
    'Press Ctrl-C to stop.',
  );
  return lines.join('\n');
}

/**
 * The name the local agent goes by: its agent.yaml's `name`, else the machine's hostname — the
 * agent's own rule, read the agent's way. Not the host record's name: that is the name the agent
 * enrolled with, and a later change of agent.yaml does not rename the record.
 */
async function localAgentName(agentConfig: string | undefined): Promise<string> {
  if (!agentConfig) return hostname();
  const { loadAgentConfig } = await import('../../agent/config/agent-config.js');
  return (await loadAgentConfig(agentConfig)).name;
}

/** The flags `denv dev` adds for its local agent after its own (`--ports`), in agent argv form (pure). */
export function localAgentFlags(o: { readonly ports?: { min: number; max: number } }): string[] {
  return o.ports ? ['--ports', `${o.ports.min}-${o.ports.max}`] : [];
}

/**
 * A host that connected at or after `sinceMs`: the agent this run started, not the record a
 * previous run left saying `connected` (pure).
 */
export function isFreshlyConnected(host: Host, sinceMs: number): boolean {
  return host.status === 'connected' && host.last_heartbeat_at !== null && Date.parse(host.last_heartbeat_at) >= sinceMs;
}

/**
 * Wait until a host has connected since `sinceMs`. The deploy's `place` phase takes the first
 * connected host at once and fails when there is none (and no cloud), so deploying before the
 * agent's first hello would fail for nothing. Resolves with that host (its name is the one the
 * agent reported: agent.yaml's `name`, else the machine's hostname), or null on timeout.
 */
async function waitForAgent(client: ApiClient, sinceMs: number, signal: AbortSignal): Promise<Host | null> {
  const deadline = Date.now() + AGENT_WAIT_MS;
  while (Date.now() < deadline) {
    const page = await client.get<Page<Host>>('/v1/hosts', { limit: 500 }, signal);
    const host = page.items.find((h) => isFreshlyConnected(h, sinceMs));
    if (host) return host;
    await delay(250, undefined, { signal });
  }
  return null;
}

export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('run denv locally: control plane, web UI, one local agent, and the bundled example app')
    .addOption(new Option('--database-url <url>', 'PostgreSQL server URL (default: embedded PostgreSQL in <data-dir>)').env('DATABASE_URL'))
    .option('--no-example', 'do not deploy the bundled example app (examples/hello)')
    .option('--agent-config <file>', "the local agent's agent.yaml (trusted keys, allowlists, listen for standalone deploys)")
    .addOption(new Option('--ports <min-max>', 'host ports the local agent hands to services (default 20000-29999)').argParser(parsePortRange))
    .addHelpText(
      'after',
      examples(
        'denv dev',
        'denv dev --port 4700 --data-dir /tmp/denv --no-example',
        'denv dev --ports 30000-30099 --agent-config agent.yaml   # the banner names the host envelopes bind to',
        '# in another terminal:',
        'denv deploy -f compose.yaml --project hello --watch',
      ),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<DevOptions>(cmd);
      const dataDir = path.resolve(opts.dataDir);
      const shutdown = onShutdown();
      let agent: AgentChild | null = null;
      try {
        const { startControlPlane } = await import('../../control-plane/control-plane.js');
        const cp = await startControlPlane({ port: opts.port, dataDir, databaseUrl: opts.databaseUrl, allowFileRepos: true, log: (l) => say(`[server] ${l}`) });
        try {
          say(`control plane listening on ${cp.url}`);
          const enrollmentKey = await cp.createEnrollmentKey({ expiresInS: 3600, singleUse: true });
          const spawnedAt = Date.now();
          agent = spawnAgentChild({
            node: process.execPath,
            script: DENV_BIN,
            control: cp.url,
            enrollmentKey,
            dataDir: path.join(dataDir, 'agent'),
            ...(opts.agentConfig ? { config: path.resolve(opts.agentConfig) } : {}),
            // Services' files live beside the 0700 data dir. The local agent serves only the team of
            // the developer who runs it (no other team can place an env on it), so a process
            // service may run in any directory of this machine its user can reach; it still runs as
            // a user of its own, not as the developer (docs/security.md).
            extra: ['--workloads', `${dataDir}-workloads`, '--allow-path', '/', ...localAgentFlags(opts)],
            write: say,
          });
          // The agent exiting on its own (not because we are stopping) ends `dev` with an error.
          const agentDied = agent.exited.then((how) => {
            if (shutdown.signal.aborted) return;
            throw new CliError('AGENT_EXITED', `the local agent exited (${how}); see the [agent] lines above`);
          });
          const client = new ApiClient({ url: cp.url, token: () => cp.adminToken });
          const startup = (async () => {
            const host = await waitForAgent(client, spawnedAt, shutdown.signal);
            if (!host) say(`the local agent has not connected after ${AGENT_WAIT_MS / 1000} s; carrying on (see the [agent] lines)`);
            const app = opts.example ? await deployExample(client, shutdown.signal) : null;
            const tokenFile = path.join(dataDir, ADMIN_TOKEN_FILE);
            say(formatBanner({ url: cp.url, adminToken: cp.adminToken, tokenFile, app, example: opts.example, clientFlags: clientFlagsFor(opts.port, opts.dataDir), host: { name: await localAgentName(opts.agentConfig ? path.resolve(opts.agentConfig) : undefined).catch(() => host?.name ?? hostname()), id: host?.id ?? null } }));
          })();
          startup.catch(() => undefined); // settled below, or moot once stopping
          await Promise.race([startup.then(() => Promise.race([shutdown.stopped, agentDied])), shutdown.stopped, agentDied]);
          say('stopping…');
        } finally {
          await agent?.stop();
          await cp.close();
        }
      } finally {
        shutdown.dispose();
      }
    });
}

/**
 * Deploy examples/hello and watch it. A failed deploy is printed, not thrown: the control plane
 * and UI stay up so the user can look at it. Only an abort (Ctrl-C) propagates.
 */
async function deployExample(client: ApiClient, signal: AbortSignal): Promise<Env | null> {
  try {
    const compose = await readComposeFile(EXAMPLE_COMPOSE);
    say(`deploying the example (${path.relative(PACKAGE_ROOT, compose.path)}) as ${EXAMPLE_PROJECT}/${EXAMPLE_ENV}`);
    const answer = await startDeploy(client, { project: EXAMPLE_PROJECT, composeDoc: compose.doc, env: EXAMPLE_ENV }, signal);
    await watchDeployment(client, answer.deployment.id, { signal });
    return await client.get<Env>(`/v1/envs/${seg(answer.env.id)}`, undefined, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    say(formatError(err));
    return null;
  }
}
