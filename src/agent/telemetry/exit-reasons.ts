/**
 * Why a service process ended, beyond its exit code: a process killed with SIGKILL that nobody in
 * denv signalled was most likely killed by the kernel for memory. The watch keeps, per service, the
 * memory cgroup its process was last seen in and that cgroup's OOM-kill count (refreshed by the
 * metrics sampler every few seconds, and at spawn); at death, a grown count means `OOMKilled`.
 * Without a cgroup count the machine-wide one (/proc/vmstat) is used.
 *
 * Bounded: one entry per live service, removed when the service is forgotten.
 */
import type { ServiceExit } from '../runtimes/process/env-state.js';
import { isSameProcessAlive } from '../runtimes/process/proc-stat.js';
import { memoryCgroupOf, oomKills, systemOomKills, type MemoryCgroup } from './memory-cgroup.js';

interface Baseline {
  readonly pid: number;
  readonly cgroup: MemoryCgroup | null;
  readonly cgroupKills: number | null;
  readonly systemKills: number | null;
}

/** The words live status shows for an exit (seed 002: reasons such as OOMKilled). Pure. */
export function describeExit(exit: ServiceExit, reason: string | null): string {
  if (reason) return reason;
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.code !== null) return `exit code ${exit.code}`;
  return 'exited (code unknown)';
}

export class ExitReasons {
  private readonly baselines = new Map<string, Baseline>();

  /** Record where the process of service `key` is charged now (call at spawn and on every sample). */
  async observe(key: string, pid: number): Promise<void> {
    const cgroup = await memoryCgroupOf(pid);
    const [cgroupKills, systemKills] = await Promise.all([cgroup ? oomKills(cgroup) : null, systemOomKills()]);
    // The counts are a baseline only if the process outlived reading them: had the OOM killer
    // struck meanwhile, they would already include its kill. A dead process keeps its old baseline.
    if (!(await isSameProcessAlive(pid, null))) return;
    // A kill counted in the process's own cgroup while it still looks alive is its own OOM kill
    // under way (a victim reclaiming memory on a loaded machine takes a while to exit): the count
    // from before it stays the baseline, or the death would read as a plain SIGKILL.
    const prev = this.baselines.get(key);
    const dying = prev?.pid === pid && prev.cgroup?.dir === cgroup?.dir && prev.cgroupKills !== null && cgroupKills !== null && cgroupKills > prev.cgroupKills;
    if (dying) return;
    this.baselines.set(key, { pid, cgroup, cgroupKills, systemKills });
  }

  /** `OOMKilled` when the OOM killer most likely ended process `pid`; null otherwise. */
  async explain(key: string, pid: number | null, exit: ServiceExit): Promise<string | null> {
    const base = this.baselines.get(key);
    if (exit.signal !== 'SIGKILL' || !base || base.pid !== pid) return null;
    if (base.cgroup && base.cgroupKills !== null) {
      const now = await oomKills(base.cgroup);
      if (now !== null && now > base.cgroupKills) return 'OOMKilled';
    }
    const system = await systemOomKills();
    if (system !== null && base.systemKills !== null && system > base.systemKills) return 'OOMKilled';
    return null;
  }

  forget(key: string): void {
    this.baselines.delete(key);
  }

  /** Keep only the services still known (by key). */
  retain(keys: ReadonlySet<string>): void {
    for (const k of this.baselines.keys()) if (!keys.has(k)) this.baselines.delete(k);
  }
}
