import path from 'node:path';
import { assertSafeName } from '../files.js';

/**
 * Where verify.collect puts the copy of capture `capture` of env `env`:
 * `<dataDir>/collected/<env>/<capture>`, inside the agent's own data dir (mode 0700, owned by
 * the agent's user), out of reach of the service it was collected from. env.destroy of `env`
 * removes `<dataDir>/collected/<env>`.
 */
export function collectedDir(dataDir: string, env: string, capture: string): string {
  assertSafeName('env', env);
  assertSafeName('capture', capture);
  return path.join(dataDir, 'collected', env, capture);
}

export function collectedEnvDir(dataDir: string, env: string): string {
  assertSafeName('env', env);
  return path.join(dataDir, 'collected', env);
}

/** Scratch space of verify.run in (grader) env `env`: holds the reward file. */
export function verifyRunDir(dataDir: string, env: string): string {
  assertSafeName('env', env);
  return path.join(dataDir, 'verify-runs', env);
}
