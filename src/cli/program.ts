/**
 * The `denv` command tree (DESIGN §12). Each command lives in `commands/<name>.ts` and registers
 * itself with `program.command(…)`, so it inherits the settings made here (error output, help
 * layout, exit handling). `runCli` turns every failure into `error (CODE): message` and an exit code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerAgent } from './commands/agent.js';
import { registerAgentService } from './commands/agent-service.js';
import { registerConfig } from './commands/config.js';
import { registerDeploy } from './commands/deploy.js';
import { registerDeployment } from './commands/deployment.js';
import { registerDeployments } from './commands/deployments.js';
import { registerDev } from './commands/dev.js';
import { registerEdge } from './commands/edge.js';
import { registerProject } from './commands/project.js';
import { registerPreview } from './commands/preview.js';
import { registerEnrollmentKey } from './commands/enrollment-key.js';
import { registerEnv } from './commands/env.js';
import { registerEvents } from './commands/events.js';
import { registerHosts } from './commands/hosts.js';
import { registerCloud } from './commands/cloud.js';
import { registerAwsAccount } from './commands/aws-account.js';
import { registerServer } from './commands/server.js';
import { registerPreflight } from './commands/preflight.js';
import { registerSign } from './commands/sign.js';
import { registerTokens } from './commands/tokens.js';
import { addGlobalOptions } from './config.js';
import { examples } from './help.js';
import { formatError } from './output.js';
import { PACKAGE_ROOT } from './paths.js';

/** Commander's own messages (`error: unknown option '--x'`) in the CLI's error format. */
export function formatUsageError(text: string): string {
  return `error (USAGE): ${text.trim().replace(/^error:\s*/, '')}\n`;
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface ProgramIo {
  readonly writeOut?: (s: string) => void;
  readonly writeErr?: (s: string) => void;
}

export function buildProgram(io: ProgramIo = {}): Command {
  const program = new Command('denv')
    .description('self-hosted deployments with evidence, automatic rollback, and environments forked with their data')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({
      writeOut: io.writeOut ?? ((s) => process.stdout.write(s)),
      writeErr: io.writeErr ?? ((s) => process.stderr.write(s)),
      outputError: (text, write) => write(formatUsageError(text)),
    })
    .showHelpAfterError('(add --help for usage)');
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    examples(
      'denv dev                                     # control plane + UI + local agent + example app',
      'denv deploy -f compose.yaml --project hello --watch',
      'denv deployment watch dep_0123abcd',
      'denv env ls',
      'denv hosts --json',
    ),
  );
  registerDev(program);
  registerServer(program);
  registerAgent(program);
  registerAgentService(program);
  registerDeploy(program);
  registerDeployment(program);
  registerDeployments(program);
  registerEnv(program);
  registerEvents(program);
  registerHosts(program);
  registerCloud(program);
  registerAwsAccount(program);
  registerEnrollmentKey(program);
  registerTokens(program);
  registerEdge(program);
  registerProject(program);
  registerPreview(program);
  registerSign(program);
  registerPreflight(program);
  registerConfig(program);
  return program;
}

/** Run the CLI on `argv` (process.argv form); resolves with the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: ProgramIo = {}): Promise<number> {
  const program = buildProgram(io);
  const writeErr = io.writeErr ?? ((s: string) => void process.stderr.write(s));
  try {
    await program.parseAsync([...argv]);
    // Commands that end without an error but must not exit 0 (a watched deployment that failed)
    // set process.exitCode; it is handed back here and reset so runCli can run again (tests).
    const code = typeof process.exitCode === 'number' ? process.exitCode : 0;
    process.exitCode = undefined;
    return code;
  } catch (err) {
    // Commander already printed its message (usage errors) or the help/version it was asked for.
    if (err instanceof CommanderError) return err.exitCode;
    const verbose = program.opts<{ verbose?: boolean }>().verbose ?? argv.includes('--verbose');
    writeErr(`${formatError(err, verbose)}\n`);
    return 1;
  }
}
