/** Where an env's services' files live on the host, under the agent's workloads root (docs/security.md). */
import path from 'node:path';
import { assertSafeName } from '../files.js';

/** `<workloads>/<env>`: everything of the env that its services reach. */
export function envWorkloadsDir(workloads: string, env: string): string {
  assertSafeName('env', env);
  return path.join(workloads, env);
}

/** `<workloads>/<env>/work`: where a service without working_dir runs (owned by its user). */
export function envWorkDir(workloads: string, env: string): string {
  return path.join(envWorkloadsDir(workloads, env), 'work');
}
