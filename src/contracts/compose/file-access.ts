/**
 * The only way the Compose loader reaches files: `include`, `extends.file`, `env_file` and the
 * `.env` beside the Compose file. The CLI implements it with node:fs (src/cli/load-compose-file.ts);
 * the server passes `null`, because Compose text sent over the API has no files beside it.
 * Keeping I/O behind this interface keeps `contracts/` free of it (STYLE §7).
 */
export interface FileAccess {
  /** The UTF-8 text of an absolute path; rejects when it cannot be read. */
  readText(absolutePath: string): Promise<string>;
  /** Whether an absolute path exists (and is readable as a file). */
  exists(absolutePath: string): Promise<boolean>;
}

/** The message a loader without file access gives for `what` (`include`, `env_file` …). */
export function needsFiles(what: string): string {
  return `${what} needs files; send it with the CLI (\`denv deploy -f\`), which loads them`;
}
