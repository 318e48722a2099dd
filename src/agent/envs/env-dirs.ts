/** Where an env's services' files live on the host, under the agent's workloads root (docs/security.md). */
import path from 'node:path';
import { assertSafeName } from '../files.js';

/** `<workloads>/<env>`: everything of the env that its services reach. */
export function envWorkloadsDir(workloads: string, env: string): string {
  assertSafeName('env', env);
  return path.join(workloads, env);
}

/** `<workloads>/<env>/work`: the parent of the env's services' own dirs (root's, 0711). */
export function envWorkDir(workloads: string, env: string): string {
  return path.join(envWorkloadsDir(workloads, env), 'work');
}

/** `<workloads>/<env>/work/<service>`: the service's own dir (HOME, and working dir when none is given), owned by its user. */
export function serviceWorkDir(workloads: string, env: string, service: string): string {
  assertSafeName('service', service);
  return path.join(envWorkDir(workloads, env), service);
}
