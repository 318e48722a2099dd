/**
 * Per-env users (docs/security.md): a service without `user:` runs as a uid of its own, taken from
 * systemd's range for dynamic users (61184–65519) so it never collides with an account in
 * /etc/passwd. The registry is host-wide (`/var/lib/denv/uids.json`, under a flock) because
 * several agents may share a machine, and two envs of different teams must never share a uid.
 *
 * A fork inherits its source's uid (`inherit`): its datasets are O(1) copies whose files the
 * source's uid owns, and re-owning them would make a fork O(size). Source and fork are the same
 * team's data. A uid is given back when its last env is destroyed; entries of an agent whose data
 * dir is gone are reclaimed.
 */
import { access } from 'node:fs/promises';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';
import { acquireFileLock } from '../locks/file-lock.js';

export const DYNAMIC_UID_MIN = 61184;
export const DYNAMIC_UID_MAX = 65519;
export const DEFAULT_UID_REGISTRY = '/var/lib/denv/uids.json';

/** uid → the agent data dir and the envs that run as it. */
type UidTable = Record<string, { agent: string; envs: string[] }>;

export class UidRegistry {
  constructor(
    private readonly agentDir: string,
    readonly file = process.env.DENV_UID_REGISTRY ?? DEFAULT_UID_REGISTRY,
  ) {}

  /**
   * The uid of `env` on this agent, allocating one when it has none. An env that has one (every
   * deploy after its first) is answered from the file without the lock: writes replace the file
   * whole (rename), and only this agent removes its own env's entry (`release`) — others reclaim
   * an agent's entries only once its data dir is gone. The lock costs a flock(1) process.
   */
  async uidFor(env: string): Promise<number> {
    const known = this.find(((await readJsonOrNull(this.file)) ?? {}) as UidTable, env);
    if (known !== null) return known;
    return this.locked(async (table) => {
      const found = this.find(table, env);
      if (found !== null) return { table, value: found };
      const next = await this.reclaim(table);
      for (let uid = DYNAMIC_UID_MIN; uid <= DYNAMIC_UID_MAX; uid++) {
        if (next[String(uid)]) continue;
        next[String(uid)] = { agent: this.agentDir, envs: [env] };
        return { table: next, value: uid };
      }
      throw new Error(`no free uid in ${DYNAMIC_UID_MIN}-${DYNAMIC_UID_MAX}`);
    });
  }

  /** `env` runs as `from`'s uid (a fork). Returns that uid, or a new one when `from` has none. */
  async inherit(from: string, env: string): Promise<number> {
    const inherited = await this.locked(async (table) => {
      const uid = this.find(table, from);
      if (uid === null) return { table, value: null };
      const entry = table[String(uid)]!;
      if (!entry.envs.includes(env)) entry.envs.push(env);
      return { table, value: uid };
    });
    return inherited ?? this.uidFor(env);
  }

  /** `env` no longer runs here; its uid is free once no env uses it. Returns the uid freed, or null. */
  release(env: string): Promise<number | null> {
    return this.locked(async (table) => {
      const uid = this.find(table, env);
      if (uid === null) return { table, value: null };
      const entry = table[String(uid)]!;
      entry.envs = entry.envs.filter((e) => e !== env);
      if (entry.envs.length > 0) return { table, value: null };
      delete table[String(uid)];
      return { table, value: uid };
    });
  }

  private find(table: UidTable, env: string): number | null {
    for (const [uid, entry] of Object.entries(table)) if (entry.agent === this.agentDir && entry.envs.includes(env)) return Number(uid);
    return null;
  }

  /** Drop entries of agents whose data dir no longer exists (their services went with it). */
  private async reclaim(table: UidTable): Promise<UidTable> {
    const next: UidTable = {};
    for (const [uid, entry] of Object.entries(table)) {
      if (await access(entry.agent).then(() => true, () => false)) next[uid] = entry;
    }
    return next;
  }

  private async locked<T>(fn: (table: UidTable) => Promise<{ table: UidTable; value: T }>): Promise<T> {
    const release = await acquireFileLock(`${this.file}.lock`, { waitMs: 30_000 });
    try {
      const table = ((await readJsonOrNull(this.file)) ?? {}) as UidTable;
      const before = JSON.stringify(table);
      const out = await fn(table);
      if (JSON.stringify(out.table) !== before) {
        await writeJsonAtomic(this.file, out.table, 0o600);
      }
      return out.value;
    } finally {
      await release();
    }
  }
}
