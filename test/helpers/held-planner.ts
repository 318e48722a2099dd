/**
 * The host planner with a hold: envs whose name starts with `hold-` are not planned until
 * `release()`; envs named `fail-…` make it throw (a planner that keeps failing). It lets a test observe an env in `planning`; every other env is planned by the
 * real host planner. (The planner is an interface of the control plane; this is a test planner
 * behind it, not a stand-in for our code under test.)
 */
import { hostPlanner, type Planner } from '../../src/control-plane/lifecycle/planner.js';

export function heldPlanner(): Planner & { release(): void; releaseEnv(envName: string): void; holding(envName: string): Promise<void> } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  // `holding(name)` resolves once the planner is at work on that env (called, and held).
  const signal = () => {
    const map = new Map<string, { promise: Promise<void>; resolve: () => void }>();
    return (name: string) => {
      let entry = map.get(name);
      if (!entry) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        entry = { promise, resolve };
        map.set(name, entry);
      }
      return entry;
    };
  };
  const calledFor = signal();
  // `releaseEnv(name)` lets that one env's plan go on (`release()` lets every one go on).
  const releasedFor = signal();
  return {
    name: 'host',
    async plan(input) {
      if (input.envName.startsWith('hold-')) {
        calledFor(input.envName).resolve();
        await Promise.race([released, releasedFor(input.envName).promise]);
      }
      if (input.envName.startsWith('fail-')) throw new Error('the model answered nonsense');
      return hostPlanner.plan(input);
    },
    release,
    releaseEnv: (envName) => releasedFor(envName).resolve(),
    holding: (envName) => calledFor(envName).promise,
  };
}
