/**
 * `denv server`: run the control plane until SIGINT/SIGTERM, then close it (which finishes or
 * hands back in-flight work; unfinished deployments resume on the next start).
 */
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ADMIN_TOKEN_FILE, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { onShutdown } from '../signals.js';

interface ServerOptions {
  readonly allowFileRepos?: boolean;
  readonly databaseUrl?: string;
  readonly host: string;
  readonly resendAfter?: number;
  readonly commandTimeout?: number;
  readonly keepSnapshots?: number;
  readonly heartbeat?: number;
  readonly degradedAfter?: number;
  readonly disconnectedAfter?: number;
  readonly maxUnauthenticatedAgents?: number;
  readonly helloTimeout?: number;
  readonly hellosPerSecond?: number;
  readonly streamsPerToken?: number;
  readonly awsOperatorCredentials?: string;
}

const positiveMs = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of milliseconds');
  return n;
};

const wholeNumber = (v: string): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 1000) throw new InvalidArgumentError('expected a whole number from 0 to 1000');
  return n;
};

const count = (v: string): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 100_000) throw new InvalidArgumentError('expected a whole number from 1 to 100000');
  return n;
};

export function registerServer(program: Command): void {
  program
    .command('server')
    .description('run the control plane: API, web UI, agent gateway (/agent/ws) and background sweeps')
    .addOption(new Option('--database-url <url>', 'PostgreSQL server URL (default: embedded PostgreSQL in <data-dir>)').env('DATABASE_URL'))
    .addOption(new Option('--host <address>', 'address to listen on; agents on other machines need a reachable one').env('DENV_HOST').default('127.0.0.1'))
    .addOption(new Option('--resend-after <ms>', 'an in-flight agent command is not re-sent for this long (default 600000, seed 002)').argParser(positiveMs).env('DENV_RESEND_AFTER_MS'))
    .addOption(new Option('--command-timeout <ms>', 'bound on every phase (default 900000)').argParser(positiveMs).env('DENV_COMMAND_TIMEOUT_MS'))
    .addOption(new Option('--heartbeat <ms>', 'how often agents are told to heartbeat (default 30000)').argParser(positiveMs).env('DENV_HEARTBEAT_MS'))
    .addOption(new Option('--degraded-after <ms>', 'a host without a heartbeat for this long is degraded (default 120000)').argParser(positiveMs).env('DENV_DEGRADED_AFTER_MS'))
    .addOption(new Option('--disconnected-after <ms>', 'a host without a heartbeat for this long is disconnected (default 600000)').argParser(positiveMs).env('DENV_DISCONNECTED_AFTER_MS'))
    // Abuse limits (docs/security.md): what an anonymous caller of /agent/ws, or one token's event
    // streams, may hold.
    .addOption(new Option('--max-unauthenticated-agents <n>', 'agent sockets held open before their hello is welcomed; more are refused with 503 (default 64)').argParser(count).env('DENV_MAX_UNAUTHENTICATED_AGENTS'))
    .addOption(new Option('--hello-timeout <ms>', 'an agent socket not welcomed within this long is closed (default 10000)').argParser(positiveMs).env('DENV_HELLO_TIMEOUT_MS'))
    .addOption(new Option('--hellos-per-second <n>', 'agent hellos checked per second; more are closed unread and retried by the agent (default 100)').argParser(count).env('DENV_HELLOS_PER_SECOND'))
    .addOption(new Option('--streams-per-token <n>', 'event streams (SSE) one API token may hold open; more are refused with 429 (default 20)').argParser(count).env('DENV_STREAMS_PER_TOKEN'))
    .option('--allow-file-repos', 'let projects link file:// repositories on this machine (source deploys; for a single-user server)')
    .addOption(
      new Option('--aws-operator-credentials <file>', "the operator's AWS keys as JSON {access_key_id, secret_access_key, region, session_token?, endpoint?}, mode 0600: teams' roles are assumed with them and vended accounts made in their AWS Organization (docs/targets.md)").env('DENV_AWS_OPERATOR_CREDENTIALS'),
    )
    .addOption(new Option('--keep-snapshots <n>', 'snapshot retention: keep the snapshots of the current version and of this many latest healthy versions per env (default 3), plus those forks and running operations need').argParser(wholeNumber).env('DENV_KEEP_SNAPSHOTS'))
    .addHelpText(
      'after',
      examples(
        'denv server --port 4600 --data-dir /var/lib/denv',
        'DATABASE_URL=postgres://denv@db/denv denv server --host 0.0.0.0',
        '# then, on each machine to deploy to:',
        'denv agent --control http://cp.example:4600 --enrollment-key <key> --data-dir /var/lib/denv-agent',
      ),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<ServerOptions>(cmd);
      const dataDir = path.resolve(opts.dataDir);
      const shutdown = onShutdown();
      try {
        // Loaded on demand: client commands should not pay for the server's dependencies.
        const { startControlPlane } = await import('../../control-plane/control-plane.js');
        const { readOperatorCredentials } = await import('../../control-plane/targets/ecs/aws-operator.js');
        const awsOperator = opts.awsOperatorCredentials ? readOperatorCredentials(path.resolve(opts.awsOperatorCredentials)) : null;
        const cp = await startControlPlane({
          port: opts.port, host: opts.host, dataDir, databaseUrl: opts.databaseUrl, log: say,
          resendAfterMs: opts.resendAfter, commandTimeoutMs: opts.commandTimeout, keepSnapshots: opts.keepSnapshots,
          heartbeatMs: opts.heartbeat, degradedAfterMs: opts.degradedAfter, disconnectedAfterMs: opts.disconnectedAfter,
          agentAdmission: definedOnly({ maxUnauthenticated: opts.maxUnauthenticatedAgents, helloTimeoutMs: opts.helloTimeout, hellosPerSecond: opts.hellosPerSecond }),
          streamLimits: definedOnly({ perToken: opts.streamsPerToken }),
          allowFileRepos: opts.allowFileRepos ?? false,
          awsOperator,
        });
        try {
          say(`denv control plane listening on ${cp.url}`);
          say(`admin token: ${path.join(dataDir, ADMIN_TOKEN_FILE)}`);
          say(`database: ${opts.databaseUrl ? redactUrl(opts.databaseUrl) : `embedded, in ${dataDir}`}`);
          const sig = await shutdown.stopped;
          say(`${sig}: stopping the control plane…`);
        } finally {
          await cp.close();
        }
      } finally {
        shutdown.dispose();
      }
    });
}

/** `o` without its undefined fields, so that the limits' defaults apply to what was not given. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A database URL with its password hidden, for the start-up banner. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
