/**
 * Per-service env files on tmpfs (DESIGN §14): the signed `env` values reach a container through
 * Compose's `env_file`, never through the compose file, argv, logs or evidence. Each file is
 * created mode 0600 in a 0700 directory this process owns, on a tmpfs (checked with statfs), so
 * secrets never touch a disk. A slot keeps the files of its current and previous deploy (the
 * previous one is what a rollback restores); the rest are pruned, and all of them are removed
 * when the service goes.
 *
 *   <root>/<slot file key>/<env hash hex>.env
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ComposeFlavor } from './docker-argv.js';

const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;

/**
 * The env file's text (pure). Compose v1 (python-dotenv) and v2 (compose-go) read env files
 * differently, so the quoting depends on the flavor:
 *   v1: `KEY="…"` with `\` and `"` escaped — taken literally, `$` included (no interpolation in
 *       double quotes);
 *   v2: `KEY='…'` — single quotes are literal there; a value holding `'` cannot be written and is
 *       refused (v2 would interpolate `$` inside double quotes).
 * Values never hold NUL or line breaks (the envelope schema refuses them).
 */
export function envFileText(env: Readonly<Record<string, string>>, flavor: ComposeFlavor): string {
  const lines = Object.keys(env)
    .sort()
    .map((key) => {
      const value = env[key]!;
      if (/[\0\r\n]/.test(value)) throw new Error(`env ${key}: values cannot contain NUL or line breaks`);
      if (flavor === 'v1') return `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
      if (value.includes("'")) throw new Error(`env ${key}: a value containing ' cannot be passed through Compose v2 env files`);
      return `${key}='${value}'`;
    });
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** The default directory: private to this user and data dir, under /dev/shm (tmpfs on Linux). */
export function defaultEnvDir(dataDir: string): string {
  const tag = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return path.join('/dev/shm', `denv-${os.userInfo().uid}-${tag}`);
}

export class EnvFiles {
  constructor(readonly root: string) {}

  /**
   * Make sure the root is a directory we own, mode 0700, not a symlink, on tmpfs. Throws with the
   * reason otherwise (the `env` stage turns it into its failure).
   */
  async ensureRoot(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    const info = await lstat(this.root);
    if (!info.isDirectory() || info.isSymbolicLink()) throw new Error(`${this.root} is not a directory`);
    if (info.uid !== os.userInfo().uid) throw new Error(`${this.root} is owned by uid ${info.uid}, not by this agent`);
    if ((info.mode & 0o077) !== 0) throw new Error(`${this.root} is accessible to other users (mode ${(info.mode & 0o777).toString(8)})`);
    const fs = await statfs(this.root);
    if (fs.type !== TMPFS_MAGIC && fs.type !== RAMFS_MAGIC) throw new Error(`${this.root} is not on tmpfs; env files must not touch a disk (set env_dir in the agent config)`);
  }

  dirOf(slotFileKey: string): string {
    return path.join(this.root, slotFileKey);
  }

  pathOf(slotFileKey: string, envHash: string): string {
    return path.join(this.dirOf(slotFileKey), `${envHash.replace(/^[^:]*:/, '').slice(0, 32)}.env`);
  }

  /** Write the file atomically, mode 0600 from its first byte; returns its path. */
  async write(slotFileKey: string, envHash: string, text: string): Promise<string> {
    await this.ensureRoot();
    const file = this.pathOf(slotFileKey, envHash);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
    return file;
  }

  /** Remove every env file of the slot except `keep` (paths); returns how many were removed. */
  async prune(slotFileKey: string, keep: readonly string[]): Promise<number> {
    const dir = this.dirOf(slotFileKey);
    const names = await readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      if (keep.includes(path.join(dir, name))) continue;
      await rm(path.join(dir, name), { force: true });
      removed++;
    }
    return removed;
  }

  /** Remove the slot's directory and every env file in it. */
  async removeSlot(slotFileKey: string): Promise<void> {
    await rm(this.dirOf(slotFileKey), { recursive: true, force: true });
  }
}
