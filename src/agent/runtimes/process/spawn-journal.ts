/**
 * The spawn journal: which services this runtime is spawning right now, so a process spawned just
 * before the agent was killed — alive, but not yet in its env's state file — is not left running
 * beside the copy the resumed command starts (two copies of one version; issue 11).
 *
 * `start` writes the service's key here before it spawns and removes it once the record with the
 * pid is persisted. At open, every key still here was cut short: any process whose environment
 * names that service (`DENV_ENV`, `DENV_VERSION`, `DENV_SERVICE`, which the agent sets on every
 * service) and that is not the recorded one is an orphan, and its process group is killed.
 *
 * `<dataDir>/runtime/spawning.json`, written atomically; only the agent reads it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../../files.js';
import { Mutex } from '../../../lib/mutex.js';
import { parseStatFields } from '../../telemetry/proc-usage.js';
import type { ServiceIdentity } from './service-env.js';

export class SpawnJournal {
  private readonly file: string;
  private readonly mutex = new Mutex();

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'runtime', 'spawning.json');
  }

  add(id: ServiceIdentity): Promise<void> {
    return this.update((keys) => keys.set(keyOf(id), { env: id.env, version: id.version, service: id.service }));
  }

  remove(id: ServiceIdentity): Promise<void> {
    return this.update((keys) => keys.delete(keyOf(id)));
  }

  /** Every service whose spawn was cut short, then forget them. */
  async takeInterrupted(): Promise<ServiceIdentity[]> {
    const ids = [...(await this.read()).values()];
    if (ids.length > 0) await this.update((keys) => keys.clear());
    return ids;
  }

  private update(change: (keys: Map<string, ServiceIdentity>) => unknown): Promise<void> {
    return this.mutex.run(async () => {
      const keys = await this.read();
      change(keys);
      await writeJsonAtomic(this.file, [...keys.values()], 0o600);
    });
  }

  private async read(): Promise<Map<string, ServiceIdentity>> {
    const raw = await readJsonOrNull(this.file);
    const out = new Map<string, ServiceIdentity>();
    if (!Array.isArray(raw)) return out;
    for (const e of raw as Partial<ServiceIdentity>[]) {
      if (typeof e?.env === 'string' && typeof e.version === 'string' && typeof e.service === 'string') out.set(keyOf(e as ServiceIdentity), { env: e.env, version: e.version, service: e.service });
    }
    return out;
  }
}

const keyOf = (id: ServiceIdentity) => JSON.stringify([id.env, id.version, id.service]);

/** Process groups of live processes whose environment names service `id` (unreadable ones aside). */
export function processGroupsOf(id: ServiceIdentity): number[] {
  const want = [`DENV_ENV=${id.env}`, `DENV_VERSION=${id.version}`, `DENV_SERVICE=${id.service}`];
  const found = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      // A zombie's environ reads empty, so it never matches.
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!want.every((w) => environ.includes(w))) continue;
      const stat = parseStatFields(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (stat) found.add(stat.pgrp);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return [...found];
}
