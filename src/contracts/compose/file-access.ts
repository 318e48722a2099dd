/**
 * The only way the Compose loader reaches files: `include`, `extends.file`, `env_file` and the
 * `.env` beside the Compose file. The CLI implements it with node:fs (src/cli/load-compose-file.ts);
 * the server passes `null`, because Compose text sent over the API has no files beside it.
 * Keeping I/O behind this interface keeps `contracts/` free of it (STYLE §7).
 */
import path from 'node:path';

export interface FileAccess {
  /** The UTF-8 text of an absolute path; rejects when it cannot be read. */
  readText(absolutePath: string): Promise<string>;
  /** Whether an absolute path exists (and is readable as a file). */
  exists(absolutePath: string): Promise<boolean>;
}

/**
 * A FileAccess that only reaches paths inside `root` (an absolute directory), for loading a
 * Compose file from a checkout on the control plane: `include`, `extends.file` and `env_file`
 * could otherwise name any file (`../../etc/passwd`) and carry it into the model. A path outside
 * reads as missing for `exists` and is refused by `readText`. Lexical only: `inner` must not
 * follow symlinks out of `root` (check with realpath there if the checkout may hold them).
 */
export function confinedFileAccess(root: string, inner: FileAccess): FileAccess {
  const inside = (p: string): boolean => {
    const rel = path.relative(root, path.resolve(p));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  return {
    async readText(p) {
      if (!inside(p)) throw new Error(`${p} is outside ${root}`);
      return inner.readText(p);
    },
    async exists(p) {
      return inside(p) && inner.exists(p);
    },
  };
}

/** The message a loader without file access gives for `what` (`include`, `env_file` …). */
export function needsFiles(what: string): string {
  return `${what} needs files; send it with the CLI (\`denv deploy -f\`), which loads them`;
}
