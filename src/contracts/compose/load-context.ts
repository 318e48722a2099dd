/** What loading one Compose file knows: where it is, how to name its paths, its variables, its files. */
import type { FileAccess } from './file-access.js';
import type { Lookup } from './interpolate.js';
import type { Problems } from './problems.js';
import type { PathContext } from './volumes.js';

export interface FileContext extends PathContext {
  /** Put before every path of a problem found in this file: `''` for the main file, else `db.yaml: `. */
  readonly prefix: string;
  /** The file's variables (process environment over its `.env`), in escaped form. */
  readonly lookup: Lookup;
  /** File access, or null on the server (then include, extends.file, env_file are refused). */
  readonly files: FileAccess | null;
  readonly problems: Problems;
  /** Warnings for the user (unset variables, ignored attributes …); deduplicated at the end. */
  readonly warnings: string[];
}
