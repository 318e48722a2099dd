/**
 * Envs separated from denv on this host (`env.release`). The agent keeps them in
 * `<dataDir>/released.json` — `{<env>: {released_at, pids}}`, the pids it left running — and
 * refuses every later command naming one, across restarts: separate means the platform no longer
 * acts on that workload. The pids say what was handed over (for the operator who now owns it).
 */
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from './files.js';

export interface Released {
  readonly released_at: string;
  readonly pids: readonly number[];
}

export class ReleasedEnvs {
  private constructor(private readonly file: string, private readonly envs: Map<string, Released>) {}

  static async open(dataDir: string): Promise<ReleasedEnvs> {
    const file = path.join(dataDir, 'released.json');
    const stored = (await readJsonOrNull(file)) as Record<string, Released> | null;
    return new ReleasedEnvs(file, new Map(Object.entries(stored ?? {})));
  }

  /** Every released env (the agent drops any state it still holds for them at start). */
  list(): string[] {
    return [...this.envs.keys()];
  }

  has(env: string): boolean {
    return this.envs.has(env);
  }

  /** Record `env` as released with the pids left running; written before the answer is sent. */
  async add(env: string, pids: readonly number[]): Promise<void> {
    if (!this.envs.has(env)) this.envs.set(env, { released_at: new Date().toISOString(), pids: [...pids] });
    await writeJsonAtomic(this.file, Object.fromEntries(this.envs), 0o600);
  }
}
