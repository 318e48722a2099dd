/**
 * The host planner with a hold: envs whose name starts with `hold-` are not planned until
 * `release()`; envs named `fail-…` make it throw (a planner that keeps failing). It lets a test observe an env in `planning`; every other env is planned by the
 * real host planner. (The planner is an interface of the control plane; this is a test planner
 * behind it, not a stand-in for our code under test.) The same hold stands in front of aws_ecs
 * planning (`planEcs`): a `hold-…` ECS env is held, then gets the control plane's own ECS plan.
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
  /** Holds `hold-…` envs until released; throws for `fail-…` ones. */
  const gate = async (envName: string) => {
    if (envName.startsWith('hold-')) {
      calledFor(envName).resolve();
      await Promise.race([released, releasedFor(envName).promise]);
    }
    if (envName.startsWith('fail-')) throw new Error('the model answered nonsense');
  };
  return {
    name: 'host',
    async plan(input) {
      await gate(input.envName);
      return hostPlanner.plan(input);
    },
    async planEcs(input, deterministic) {
      await gate(input.envName);
      return deterministic;
    },
    release,
    releaseEnv: (envName) => releasedFor(envName).resolve(),
    holding: (envName) => calledFor(envName).promise,
  };
}
