/**
 * Enforcing a process service's limits (Compose `deploy.resources.limits`, `mem_limit`, `cpus`,
 * `pids_limit`) with cgroups: one cgroup per service process under `denv/` in each controller's
 * hierarchy (v1) or in the unified one (v2), limits written before the process is moved in. A
 * process killed for memory there shows as `OOMKilled` (telemetry/exit-reasons.ts reads the same
 * cgroup's OOM-kill count).
 *
 * The process is moved right after it is spawned, with every process it already forked (a child
 * forked later inherits the cgroup). Needs root and a writable cgroup hierarchy: without them a
 * service with limits fails to start with the reason, never runs unlimited.
 */
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../../contracts/errors.js';
import type { ResourceLimits } from '../../../contracts/spec.js';
import { controllerMounts } from '../../telemetry/cgroup-dir.js';
import { limitFiles, type LimitController } from './limit-files.js';

/** `denv/<env>.<version>.<service>`: names are safe path components (payloads.ts). */
export function cgroupName(key: string): string {
  return path.join('denv', key.replaceAll('/', '.'));
}

async function dirsFor(controller: LimitController): Promise<{ version: 1 | 2; base: string } | null> {
  const mounts = await controllerMounts(controller);
  const v1 = mounts.find((m) => m.version === 1);
  if (v1) return { version: 1, base: v1.point };
  const v2 = mounts.find((m) => m.version === 2);
  return v2 ? { version: 2, base: v2.point } : null;
}

async function descendants(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').then((t) => t.trim().split(/\s+/).filter(Boolean).map(Number), () => []);
  const all = [...children];
  for (const c of children) all.push(...(await descendants(c)));
  return all;
}

/** Create the cgroups of service `key` with `limits`; returns their dirs. Throws AGENT_ERROR when they cannot be made. */
export async function createLimits(key: string, limits: ResourceLimits): Promise<string[]> {
  const dirs: string[] = [];
  for (const [controller, files] of Object.entries(limitFiles(limits, 1)) as [LimitController, Record<string, string>][]) {
    const where = await dirsFor(controller);
    if (!where) throw new DenvError('AGENT_ERROR', `cannot enforce the ${controller} limit: no ${controller} cgroup controller on this host`);
    const actual = where.version === 1 ? files : limitFiles(limits, 2)[controller]!;
    const dir = path.join(where.base, cgroupName(key));
    try {
      if (where.version === 2) await enableV2(where.base, controller);
      await mkdir(dir, { recursive: true });
      for (const [file, content] of Object.entries(actual)) {
        await writeFile(path.join(dir, file), content).catch((err: NodeJS.ErrnoException) => {
          // No swap accounting on this kernel: there is no swap to limit.
          if (!((file === 'memory.swap.max' || file === 'memory.memsw.limit_in_bytes') && err.code === 'ENOENT')) throw err;
        });
      }
    } catch (err) {
      throw new DenvError('AGENT_ERROR', `cannot enforce the ${controller} limit in ${dir}: ${(err as Error).message}`);
    }
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}

/** v2: the controller must be enabled in `denv/`'s parent and in `denv/` itself. */
async function enableV2(base: string, controller: LimitController): Promise<void> {
  await writeFile(path.join(base, 'cgroup.subtree_control'), `+${controller}`).catch(() => {});
  await mkdir(path.join(base, 'denv'), { recursive: true });
  await writeFile(path.join(base, 'denv', 'cgroup.subtree_control'), `+${controller}`);
}

/**
 * Move `pid` and everything it forked so far into `dirs`; false when `pid` itself could not be
 * moved into one of them (a child that exited meanwhile is fine).
 */
export async function attach(dirs: readonly string[], pid: number): Promise<boolean> {
  const pids = [pid, ...(await descendants(pid))];
  for (const dir of dirs) {
    for (const p of pids) {
      const moved = await writeFile(path.join(dir, 'cgroup.procs'), String(p)).then(() => true, () => false);
      if (!moved && p === pid) return false;
    }
  }
  return true;
}

/** Remove the cgroups of service `key` (after its processes are gone); missing ones are fine. */
export async function removeLimits(key: string): Promise<void> {
  for (const controller of ['memory', 'cpu', 'pids'] as const) {
    const where = await dirsFor(controller);
    if (where) await rmdir(path.join(where.base, cgroupName(key))).catch(() => {});
  }
}
