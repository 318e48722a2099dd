/**
 * Secrets a command needs (API keys, tokens, webhook secrets) come from stdin (`--…-stdin`) or an
 * environment variable, never from an argument: a command line is visible to every local user in `ps`.
 */
import { CliError } from './cli-error.js';

/** Where a secret comes from: stdin when `fromStdin`, else the environment variable `envVar`. */
export interface SecretSource {
  readonly what: string;
  readonly fromStdin: boolean;
  readonly stdinFlag: string;
  readonly envVar: string;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The secret, without the line end `echo` or a file adds. Missing or empty is a usage error. */
export async function readSecret(s: SecretSource): Promise<string> {
  const value = s.fromStdin ? (await readStdin()).replace(/\r?\n$/, '') : process.env[s.envVar];
  if (value === undefined || value === '') {
    const from = s.fromStdin ? `stdin (${s.stdinFlag}) was empty` : `pipe it with ${s.stdinFlag} or set ${s.envVar}`;
    throw new CliError('USAGE', `${s.what} is needed: ${from} (never as an argument: a command line shows in ps)`);
  }
  return value;
}
