/**
 * A Compose file from disk through the Compose loader (contracts/compose), for `denv config` and
 * `denv deploy`: the CLI has the files (`.env`, `env_file`, `include`, `extends.file`), so it
 * loads them here and sends the canonical model, which the server loads again without files.
 */
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess } from '../contracts/compose/file-access.js';
import { loadCompose } from '../contracts/compose/load-compose.js';
import { CliError } from './cli-error.js';

/** FileAccess on the local disk; `exists` is true only for a readable regular file. */
export const nodeFileAccess: FileAccess = {
  readText: (absolutePath) => readFile(absolutePath, 'utf8'),
  async exists(absolutePath) {
    try {
      await access(absolutePath, constants.R_OK);
      return (await stat(absolutePath)).isFile();
    } catch {
      return false;
    }
  },
};

export interface LoadedComposeFile {
  /** Absolute path of the file read. */
  readonly path: string;
  /** The canonical Compose model (what `denv config` prints). */
  readonly model: Record<string, unknown>;
  /** Warnings to show the user (unset variables …). */
  readonly warnings: readonly string[];
}

/**
 * Load `file` (relative to the working directory) with the Compose file's directory as the
 * project directory. `env` defaults to process.env. Throws CliError NOT_FOUND for a missing file
 * and DenvError INVALID_COMPOSE listing every problem.
 */
export async function loadComposeFile(file: string, opts: { readonly profiles?: readonly string[]; readonly env?: Readonly<Record<string, string | undefined>> } = {}): Promise<LoadedComposeFile> {
  const absolute = path.resolve(file);
  if (!(await nodeFileAccess.exists(absolute))) throw new CliError('NOT_FOUND', `no compose file at ${absolute} (pass -f <file>)`);
  const text = await readFile(absolute, 'utf8');
  const { model, warnings } = await loadCompose({
    text,
    file: absolute,
    projectDir: path.dirname(absolute),
    env: opts.env ?? process.env,
    profiles: opts.profiles ?? [],
    files: nodeFileAccess,
  });
  return { path: absolute, model, warnings };
}
