/**
 * `denv agent-service install|remove|supervise`: an agent kept running as a service on a machine a
 * cloud provisions (src/agent/service/). An ssh cloud runs these over ssh and a hetzner cloud from
 * cloud-init; an operator can run them by hand on a machine of their own.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { optionsOf, parseHttpUrl } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { DENV_BIN } from '../paths.js';
import { readSecret } from '../secret-input.js';

interface InstallOptions {
  readonly dir: string;
  readonly control: string;
  readonly name: string;
  readonly address?: string;
  readonly allowPath?: string[];
  readonly keyStdin?: boolean;
  readonly json?: boolean;
}

const absolute = (v: string) => path.resolve(v);

export function registerAgentService(program: Command): void {
  const service = program.command('agent-service').description("keep an agent running as a service on this machine (systemd where it runs, else denv's supervisor)");
  service
    .command('install')
    .description('install the agent under --dir and start it; replaces an agent installed there before')
    .requiredOption('--dir <dir>', 'the directory denv owns on this machine (app/, agent/, workloads/ …)', absolute)
    .requiredOption('--control <url>', 'the control plane URL as this machine reaches it', parseHttpUrl)
    .requiredOption('--name <name>', "this host's name")
    .option('--address <ip>', "the address other machines reach this host's services at")
    .option('--allow-path <dir>', 'a host path process services may use as working_dir (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--key-stdin', 'read the enrollment key from stdin (else DENV_ENROLLMENT_KEY; none: the agent must have enrolled before)')
    .option('--json', 'print {kind, pid, argv} as JSON')
    .addHelpText('after', examples('echo "$KEY" | denv agent-service install --dir /opt/denv --control https://denv.example.com --name web-1 --key-stdin'))
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<InstallOptions>(cmd);
      const key = opts.keyStdin ? await readSecret({ what: 'the enrollment key', fromStdin: true, stdinFlag: '--key-stdin', envVar: 'DENV_ENROLLMENT_KEY' }) : (process.env.DENV_ENROLLMENT_KEY ?? null);
      const { installService } = await import('../../agent/service/install.js');
      const made = await installService({ dir: opts.dir, control: opts.control, name: opts.name, address: opts.address, allowPaths: opts.allowPath, enrollmentKey: key || null }, { denvBin: DENV_BIN });
      if (opts.json) return say(toJson(made));
      say(`agent ${opts.name} installed in ${opts.dir}, kept running by ${made.kind}${made.pid ? ` (supervisor pid ${made.pid})` : ''}`);
      if (made.warning) say(`warning: ${made.warning}`);
    });
  service
    .command('remove')
    .description('stop the agent installed under --dir and delete the directory (only one denv made)')
    .requiredOption('--dir <dir>', 'the directory given to install', absolute)
    .option('--json', 'print {removed} as JSON')
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ dir: string; json?: boolean }>(cmd);
      const { removeService } = await import('../../agent/service/install.js');
      const out = await removeService(opts.dir);
      if (opts.json) return say(toJson(out));
      say(out.removed ? `agent under ${opts.dir} stopped and removed` : `nothing installed under ${opts.dir}`);
    });
  service
    .command('supervise')
    .description('run the agent installed under --dir, starting it again whenever it exits (install starts this where systemd does not run)')
    .requiredOption('--dir <dir>', 'the directory given to install', absolute)
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ dir: string }>(cmd);
      const { supervise } = await import('../../agent/service/supervise.js');
      await supervise(opts.dir, say);
    });
}
