/**
 * `denv agent`: run a host agent until SIGINT/SIGTERM. It dials out to the control plane, trades
 * the enrollment key for a host credential on first contact (kept in its data dir, so later runs
 * need no key), and runs what the control plane sends it.
 */
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliError } from '../cli-error.js';
import { DEFAULT_DATA_DIR, optionsOf, parseHttpUrl } from '../config.js';
import { examples, say } from '../help.js';
import { onShutdown } from '../signals.js';

interface AgentOptions {
  readonly control?: string;
  readonly config?: string;
  readonly enrollmentKey?: string;
  readonly name?: string;
  readonly ports?: { min: number; max: number };
  readonly datasets?: string;
  readonly workloads?: string;
  readonly allowPath?: string[];
  readonly address?: string;
  readonly docker?: boolean;
  readonly kubernetes?: boolean;
  readonly kubeconfig?: string;
  readonly namespace?: string;
}

/** `--control`: an http(s) URL, or `unix:/abs/path.sock` (a control plane's socket file, as a `local` cloud gives its agents). */
function parseControl(value: string): string {
  if (!value.startsWith('unix:')) return parseHttpUrl(value);
  if (!value.slice(5).startsWith('/')) throw new InvalidArgumentError('expected unix:/absolute/path/to/control.sock');
  return value;
}

/** `20000-29999` → {min, max}. */
export function parsePortRange(value: string): { min: number; max: number } {
  const m = /^(\d+)-(\d+)$/.exec(value.trim());
  const min = m ? Number(m[1]) : NaN;
  const max = m ? Number(m[2]) : NaN;
  if (!(min >= 1024 && max <= 65535 && min <= max)) throw new InvalidArgumentError('expected a range such as 20000-29999 within 1024-65535');
  return { min, max };
}

export function registerAgent(program: Command): void {
  program
    .command('agent')
    .description('run a host agent that dials out to a control plane and deploys what it is told to')
    .option('--control <url>', 'the control plane URL (the agent connects to <url>/agent/ws), or unix:<socket file>; without it the agent only serves its config\'s `listen`', parseControl)
    .option('--address <ip>', "the address other machines reach this host's services at; env endpoints use it (default 127.0.0.1)")
    .addOption(new Option('--config <file>', 'agent.yaml: name, trusted_keys, allow, listen, datasets, require_signature, network (docs/envelope.md)').env('DENV_AGENT_CONFIG'))
    .addOption(new Option('--enrollment-key <key>', 'one-time key for the first connection').env('DENV_ENROLLMENT_KEY'))
    .option('--name <name>', "this host's name (default: the machine's hostname)")
    .addOption(new Option('--datasets <dir>', 'dataset root (default <workloads>/datasets); on btrfs, snapshots and forks are O(1) subvolume snapshots').env('DENV_AGENT_DATASETS'))
    .addOption(new Option('--workloads <dir>', "root of the services' files: env work dirs, verify copies (default <data-dir>-workloads); must be reachable by other users").env('DENV_AGENT_WORKLOADS'))
    .option('--allow-path <dir>', 'a host path process services may use as working_dir (repeatable; adds to the config\'s allow.paths)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-docker', 'no image services here, even where a Docker engine answers (a local cloud\'s machines)')
    .option('--kubernetes', "a cluster agent: apply envs whose target is kubernetes to the cluster of --kubeconfig (no process or docker runtime, no datasets)")
    .addOption(new Option('--kubeconfig <file>', 'with --kubernetes: the kubeconfig to use (default: KUBECONFIG, ~/.kube/config, or the in-cluster service account)'))
    .addOption(new Option('--namespace <name>', "with --kubernetes: the namespace every env's objects go in (default: the kubeconfig context's, else default)"))
    .addOption(new Option('--ports <min-max>', 'host ports handed to services; agents sharing a machine need disjoint ranges (default 20000-29999)').argParser(parsePortRange).env('DENV_AGENT_PORTS'))
    .addHelpText(
      'after',
      examples(
        'DENV_ENROLLMENT_KEY=<key> denv agent --control http://127.0.0.1:4600 --data-dir /var/lib/denv-agent',
        '# later runs reuse the credential saved in the data dir:',
        'denv agent --control http://127.0.0.1:4600 --data-dir /var/lib/denv-agent',
        '# signed image deploys, and POST /deploy for CI on the config\'s listen address:',
        'denv agent --config /etc/denv/agent.yaml --control http://127.0.0.1:4600',
        '# a Kubernetes cluster (envs with x-denv.target: kubernetes):',
        'denv agent --kubernetes --kubeconfig ~/.kube/config --namespace apps --control http://127.0.0.1:4600',
        `# --data-dir defaults to ${DEFAULT_DATA_DIR}/agent for the agent`,
      ),
    )
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<AgentOptions>(cmd);
      // The agent must not share the control plane's default data dir, so its default is a subdir.
      const given = cmd.getOptionValueSourceWithGlobals('dataDir') !== 'default';
      const dataDir = path.resolve(given ? opts.dataDir : path.join(DEFAULT_DATA_DIR, 'agent'));
      if (!opts.kubernetes && (opts.kubeconfig || opts.namespace)) throw new CliError('USAGE', '--kubeconfig and --namespace are for a cluster agent: add --kubernetes');
      const shutdown = onShutdown();
      if (opts.kubernetes) {
        try {
          await runClusterAgent(opts, dataDir, shutdown.stopped);
        } finally {
          shutdown.dispose();
        }
        return;
      }
      try {
        const { startAgent } = await import('../../agent/agent.js');
        const { loadAgentConfig } = await import('../../agent/config/agent-config.js');
        const config = opts.config ? await loadAgentConfig(opts.config) : undefined;
        if (!opts.control && !config?.listen) throw new CliError('USAGE', 'nothing to do: pass --control <url>, or --config with a `listen` address (standalone mode)');
        if (opts.control) say(`connecting to ${opts.control}…`);
        const datasets = opts.datasets ? path.resolve(opts.datasets) : (config?.datasets ?? undefined);
        const agent = startAgent({ control: opts.control, config, enrollmentKey: opts.enrollmentKey, dataDir, name: opts.name, ports: opts.ports, address: opts.address, datasets, workloads: opts.workloads, allowPaths: opts.allowPath, docker: opts.docker, log: say });
        try {
          // A refused enrollment (hostId rejects) or a listener that cannot bind ends the command with that error.
          const listening = agent.standalone.then(() => undefined);
          const connected = opts.control ? agent.hostId.then((id: string) => say(`agent connected to ${opts.control} as ${id} (data in ${dataDir})`)) : listening;
          await Promise.race([shutdown.stopped, Promise.all([connected, listening]).then(() => shutdown.stopped)]);
          say('stopping the agent…');
        } finally {
          await agent.close();
        }
      } finally {
        shutdown.dispose();
      }
    });
}

/** `denv agent --kubernetes`: a cluster agent until SIGINT/SIGTERM (agent/cluster/). */
async function runClusterAgent(opts: AgentOptions, dataDir: string, stopped: Promise<unknown>): Promise<void> {
  if (!opts.control) throw new CliError('USAGE', 'a cluster agent needs --control <url>');
  const { startClusterAgent } = await import('../../agent/cluster/cluster-agent.js');
  say(`connecting to ${opts.control}…`);
  const agent = startClusterAgent({ control: opts.control, dataDir, enrollmentKey: opts.enrollmentKey, name: opts.name, kubeconfig: opts.kubeconfig, namespace: opts.namespace, log: say });
  try {
    const connected = agent.hostId.then((id: string) => say(`cluster agent connected to ${opts.control} as ${id} (data in ${dataDir})`));
    await Promise.race([stopped, connected.then(() => stopped)]);
    say('stopping the agent…');
  } finally {
    await agent.close();
  }
}
