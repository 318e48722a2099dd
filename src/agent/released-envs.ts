/**
 * Envs separated from denv on this host (`env.release`). The agent keeps their ids in
 * `<dataDir>/released.json` and refuses every later command naming one, across restarts:
 * separate means the platform no longer acts on that workload.
 */
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from './files.js';

export class ReleasedEnvs {
  private constructor(private readonly file: string, private readonly ids: Set<string>) {}

  static async open(dataDir: string): Promise<ReleasedEnvs> {
    const file = path.join(dataDir, 'released.json');
    const ids = ((await readJsonOrNull(file)) as string[] | null) ?? [];
    return new ReleasedEnvs(file, new Set(ids));
  }

  has(env: string): boolean {
    return this.ids.has(env);
  }

  async add(env: string): Promise<void> {
    this.ids.add(env);
    await writeJsonAtomic(this.file, [...this.ids], 0o600);
  }
}
