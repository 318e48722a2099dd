/**
 * Small file helpers the agent's state relies on. Every state file is written atomically (a
 * temporary file in the same directory, then rename), so a reader — or an agent restarted after
 * SIGKILL — sees either the old or the new content, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Write `value` as JSON to `file` atomically, creating its directory; `mode` applies from the first byte. */
export async function writeJsonAtomic(file: string, value: unknown, mode = 0o644): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode, flag: 'wx' });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The parsed JSON of `file`, or null when it does not exist. Invalid JSON throws. */
export async function readJsonOrNull(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return JSON.parse(text) as unknown;
}

/** Names used as path components (env, version, service, volume, snapshot ids): no separators, no `.`/`..`. */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function assertSafeName(kind: string, name: string): void {
  if (!SAFE_NAME.test(name)) throw new Error(`invalid ${kind} name "${name}": letters, digits, _ . - only`);
}

/** Whether `p` is one of `prefixes` or lies below one (at a path boundary). */
export function isUnderAny(p: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => p === prefix || p.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
}
