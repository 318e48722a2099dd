import { parse as parseShellWords } from 'shell-quote';
import { DenvError } from './errors.js';

/** Split a Compose command string into argv the way Compose does (no shell is involved). */
export function splitCommand(value: string | readonly string[], path: string): string[] {
  if (typeof value !== 'string') return [...value];
  // `$NAME` stays literal (shell-quote would expand it to ''): `${DENV_…}` is filled in on the host.
  const words = parseShellWords(value, (key) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `$${key}` : `\${${key}}`));
  return words.map((word) => {
    if (typeof word !== 'string') throw new DenvError('INVALID_COMPOSE', `${path}: shell operators (|, &&, >, globs …) are not allowed; denv runs commands as argv without a shell`);
    return word;
  });
}
