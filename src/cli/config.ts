/**
 * The global options every command shares, and what they resolve to (DESIGN §12):
 * `--url`/DENV_URL (default `http://127.0.0.1:<port>`), `--port`/DENV_PORT (4600),
 * `--data-dir`/DENV_DATA_DIR (`./.denv`), `--token`/DENV_TOKEN (default `<data-dir>/admin-token`),
 * `--verbose`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliError } from './cli-error.js';
import { ApiClient } from './client.js';

export const DEFAULT_PORT = 4600;
export const DEFAULT_DATA_DIR = './.denv';
export const ADMIN_TOKEN_FILE = 'admin-token';

export interface GlobalOptions {
  readonly url?: string;
  readonly port: number;
  readonly dataDir: string;
  readonly token?: string;
  readonly verbose?: boolean;
}

/** Declared once on the root program; commander recognises them before or after the subcommand. */
export function addGlobalOptions(program: Command): Command {
  return program
    .addOption(new Option('--url <url>', 'control plane URL (default: http://127.0.0.1:<port>)').env('DENV_URL').argParser(parseHttpUrl))
    .addOption(new Option('--port <port>', 'control plane port').env('DENV_PORT').default(DEFAULT_PORT).argParser(parsePort))
    .addOption(new Option('--data-dir <dir>', 'data directory (database, admin-token, agent state)').env('DENV_DATA_DIR').default(DEFAULT_DATA_DIR))
    .addOption(new Option('--token <token>', 'API token (default: read <data-dir>/admin-token)').env('DENV_TOKEN'))
    .option('--verbose', 'print stack traces with errors');
}

export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number (0-65535)');
  return n;
}

/** An http(s) URL such as `http://127.0.0.1:4600`, without trailing slashes. */
export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:4600');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http:// or https:// URL');
  return value.replace(/\/+$/, '');
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

/** The global options merged with the command's own (commander's `optsWithGlobals`). */
export function optionsOf<T extends object = object>(cmd: Command): GlobalOptions & T {
  return cmd.optsWithGlobals<GlobalOptions & T>();
}

export function baseUrl(opts: Pick<GlobalOptions, 'url' | 'port'>): string {
  return (opts.url ?? `http://127.0.0.1:${opts.port}`).replace(/\/+$/, '');
}

/** A client for the control plane the global options point at; the token is read on first use. */
export function clientFor(cmd: Command): ApiClient {
  const opts = optionsOf(cmd);
  return new ApiClient({ url: baseUrl(opts), token: () => opts.token ?? readAdminToken(opts.dataDir) });
}

/** The admin token `denv dev` / `denv server` wrote to `<dataDir>/admin-token`. */
export async function readAdminToken(dataDir: string): Promise<string> {
  const file = path.resolve(dataDir, ADMIN_TOKEN_FILE);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return token;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') throw new CliError('UNAUTHORIZED', `cannot read the API token from ${file}: ${(err as Error).message}`);
  }
  throw new CliError('UNAUTHORIZED', `no API token: pass --token or set DENV_TOKEN (${file} does not exist or is empty)`);
}
