/**
 * Worker threads and child scripts that run a module of ours: `dist/…/<name>.js` beside the
 * caller, or, when the caller runs from source (vitest), the `.ts` file loaded through tsx (a dev
 * dependency): neither a worker nor a child process inherits the test runner's TypeScript
 * transform.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether the module at `callerUrl` (its `import.meta.url`) runs from TypeScript source. */
export const runsFromSource = (callerUrl: string): boolean => callerUrl.endsWith('.ts');

/** The file of module `name` in the caller's directory, as the caller runs (.ts or .js). */
export const moduleScript = (callerUrl: string, name: string): URL =>
  new URL(`./${name}${runsFromSource(callerUrl) ? '.ts' : '.js'}`, callerUrl);

/** Node's flags for a child process running `moduleScript(callerUrl, …)`. */
export const moduleExecArgv = (callerUrl: string): string[] => (runsFromSource(callerUrl) ? ['--import', 'tsx'] : []);

/** A worker thread running module `name` beside the caller. */
export function spawnModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const file = moduleScript(callerUrl, name);
  if (!runsFromSource(callerUrl)) return new Worker(file, options);
  return new Worker(`import('tsx/esm/api').then((t) => t.register()).then(() => import(${JSON.stringify(file.href)}))`, { ...options, eval: true });
}
