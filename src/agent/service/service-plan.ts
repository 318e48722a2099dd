/**
 * An agent installed as a service on a machine denv provisions over ssh or cloud-init (issue 14):
 * the layout of its directory, the agent's argv, and the systemd unit that keeps it running.
 * Pure builders; install.ts writes and runs them.
 *
 *   <dir>/.denv-machine   marker: denv made this directory (only such a directory is ever removed)
 *   <dir>/app/            this installation of denv (uploaded over ssh, or downloaded by cloud-init)
 *   <dir>/agent/          the agent's data dir (its host credential once it has enrolled)
 *   <dir>/workloads/      services' files
 *   <dir>/agent.env       0600: DENV_ENROLLMENT_KEY=<single-use key> (spent at the first connection)
 *   <dir>/service.json    how the agent is kept running (`systemd` or `supervisor`) and its argv
 *   <dir>/supervisor.pid  the supervisor's pid, where there is no systemd
 *   <dir>/agent.log       the supervisor's and the agent's output, where there is no systemd
 */
import path from 'node:path';

export const MARKER = '.denv-machine';
export const UNIT_NAME = 'denv-agent.service';
export const UNIT_PATH = `/etc/systemd/system/${UNIT_NAME}`;

/** How the agent is kept running: systemd where it is the init system, else denv's own supervisor. */
export type ServiceKind = 'systemd' | 'supervisor';

export interface ServiceSettings {
  readonly dir: string;
  readonly control: string;
  readonly name: string;
  readonly address?: string;
  readonly allowPaths?: readonly string[];
}

export interface ServiceRecord {
  readonly kind: ServiceKind;
  readonly argv: readonly string[];
}

export const paths = (dir: string) => ({
  marker: path.join(dir, MARKER),
  app: path.join(dir, 'app'),
  dataDir: path.join(dir, 'agent'),
  workloads: path.join(dir, 'workloads'),
  envFile: path.join(dir, 'agent.env'),
  record: path.join(dir, 'service.json'),
  pidFile: path.join(dir, 'supervisor.pid'),
  log: path.join(dir, 'agent.log'),
});

/** The agent's argv: `node <denv> agent …` with its data under `dir`. */
export function agentArgv(node: string, denvBin: string, s: ServiceSettings): string[] {
  const p = paths(s.dir);
  return [
    node, denvBin, 'agent', '--control', s.control, '--data-dir', p.dataDir, '--workloads', p.workloads, '--name', s.name,
    ...(s.address ? ['--address', s.address] : []),
    ...(s.allowPaths ?? []).flatMap((a) => ['--allow-path', a]),
  ];
}

/** An enrollment key safe to write into an environment file read by systemd and by us. */
const KEY = /^[A-Za-z0-9_.~+/=-]{8,512}$/;

export function envFileText(enrollmentKey: string): string {
  if (!KEY.test(enrollmentKey)) throw new Error('the enrollment key has characters an enrollment key never has');
  return `DENV_ENROLLMENT_KEY=${enrollmentKey}\n`;
}

/** `KEY=value` lines (as envFileText writes them) → an environment. */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** One argument as systemd's ExecStart reads it (systemd.syntax: quoting, `$` and `%` specifiers). */
export function systemdQuote(arg: string): string {
  const escaped = arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '$$$$').replace(/%/g, '%%');
  return `"${escaped}"`;
}

/**
 * The unit: restarted whenever it exits, started at boot. KillMode=process: stopping or restarting
 * the agent leaves the services it started running (they are its own processes' children only
 * until it detaches them; an agent that starts again adopts them), as `denv agent` does by hand.
 */
export function systemdUnit(s: ServiceSettings, argv: readonly string[]): string {
  return [
    '[Unit]',
    `Description=denv agent ${s.name}`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    `EnvironmentFile=-${paths(s.dir).envFile}`,
    `ExecStart=${argv.map(systemdQuote).join(' ')}`,
    'Restart=always',
    'RestartSec=2',
    'KillMode=process',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** The supervisor's wait before starting the agent again: 1 s, doubling to 30 s; back to 1 s after a run of a minute. */
export function restartDelayMs(previousDelayMs: number, ranForMs: number): number {
  if (ranForMs >= 60_000) return 1000;
  return Math.min(30_000, Math.max(1000, previousDelayMs * 2));
}
