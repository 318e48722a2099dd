/**
 * `denv enrollment-key`: mint a key for `denv agent --enrollment-key` (POST /v1/enrollment-keys).
 * The key is shown once; the control plane stores only its hash.
 */
import type { Command } from 'commander';
import { baseUrl, clientFor, optionsOf, parsePositiveInt } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';

interface EnrollmentKey {
  readonly id: string;
  readonly key: string;
  readonly expires_at: string;
  readonly single_use: boolean;
}

export function registerEnrollmentKey(program: Command): void {
  program
    .command('enrollment-key')
    .description('create a key that lets a new agent join your team (shown once)')
    .option('--expires-in <seconds>', 'lifetime of the key', parsePositiveInt, 3600)
    .option('--single-use', 'the key enrolls one host only (the default)')
    .option('--reusable', 'the key enrolls any number of hosts until it expires or is revoked')
    .option('--json', 'print {id, key, expires_at, single_use}')
    .addHelpText('after', examples('denv enrollment-key', 'denv enrollment-key --expires-in 86400 --reusable --json'))
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ expiresIn: number; singleUse?: boolean; reusable?: boolean; json?: boolean }>(cmd);
      const key = await clientFor(cmd).post<EnrollmentKey>('/v1/enrollment-keys', { expires_in: opts.expiresIn, single_use: !opts.reusable });
      if (opts.json) return say(toJson(key));
      say(key.key);
      say(`expires ${key.expires_at}${key.single_use ? ', single use' : ''}. On the host to add:`);
      say(`  DENV_ENROLLMENT_KEY=${key.key} denv agent --control ${baseUrl(opts)} --data-dir /var/lib/denv-agent`);
    });
}
