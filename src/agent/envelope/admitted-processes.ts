/**
 * Which process services this host has admitted from a verified envelope, per env, by the digest
 * of their spec (admit-process.ts). On a host with `process_runtime: signed`, starting a spec
 * again in the same env — a rollback, `denv env start`, a re-delivered command, a fork of the
 * env (which inherits its source's record) — needs no new envelope: the signature was checked
 * when it first ran, as for image services (whose verified deploys the slot records keep).
 * Anything else needs an envelope.
 *
 * `<dataDir>/envelopes/admitted-processes.json`, written atomically; only the agent reads it.
 */
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';
import { Mutex } from '../../lib/mutex.js';

type Record_ = Readonly<Record<string, readonly string[]>>;

export class AdmittedProcesses {
  readonly file: string;
  private readonly mutex = new Mutex();

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'envelopes', 'admitted-processes.json');
  }

  async has(env: string, digest: string): Promise<boolean> {
    return (await this.read()).get(env)?.includes(digest) ?? false;
  }

  add(env: string, digest: string): Promise<void> {
    return this.update((all) => all.set(env, [...new Set([...(all.get(env) ?? []), digest])]));
  }

  /** A fork may start what its source was admitted to run. */
  inherit(from: string, env: string): Promise<void> {
    return this.update((all) => all.set(env, [...new Set([...(all.get(env) ?? []), ...(all.get(from) ?? [])])]));
  }

  /** The env is gone (destroyed or released). */
  forget(env: string): Promise<void> {
    return this.update((all) => all.delete(env));
  }

  private update(change: (all: Map<string, readonly string[]>) => unknown): Promise<void> {
    return this.mutex.run(async () => {
      const all = await this.read();
      change(all);
      await writeJsonAtomic(this.file, Object.fromEntries(all), 0o600);
    });
  }

  /** A Map: env ids are plain strings, never prototype members. */
  private async read(): Promise<Map<string, readonly string[]>> {
    const raw = (await readJsonOrNull(this.file)) as Record_ | null;
    const out = new Map<string, readonly string[]>();
    if (!raw || typeof raw !== 'object') return out;
    for (const [env, digests] of Object.entries(raw)) if (Array.isArray(digests)) out.set(env, digests.filter((d): d is string => typeof d === 'string'));
    return out;
  }
}
