import { constants } from 'node:fs';
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { rewardOf } from '../../contracts/verify.js';
import { ExecError, run } from '../../lib/exec.js';
import { exists } from '../datasets/staging.js';
import { liveService } from '../envs/live-service.js';
import { collectedDir, verifyRunDir } from '../verify/collected-dir.js';
import { ownDir, ownTree } from '../identity/ownership.js';
import { contextArgv } from '../runtimes/process/launch-argv.js';
import { refuseUnsignedCommand } from '../envs/admit-process.js';
import type { CommandHandler } from './handler.js';

const OUTPUT_KEPT = 4096;
const REWARD_FILE_CAP = 4096;

const tail = (s: string) => (s.length > OUTPUT_KEPT ? s.slice(-OUTPUT_KEPT) : s);

/** The reward file's content (first 4 KiB), or null when the verifier did not create it. Never follows a symlink. */
async function readRewardFile(file: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return ''; // there, but not a file we read (a symlink, …): no reward
  }
  try {
    const buf = Buffer.alloc(REWARD_FILE_CAP);
    const { bytesRead } = await handle.read(buf, 0, REWARD_FILE_CAP, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * verify.run: run the verifier in the grader fork, in the context of `service` (its working dir,
 * environment, PORT and datasets, as env.exec), plus DENV_COLLECTED (the collected copy) and
 * DENV_REWARD_FILE (a fresh path). The reward follows the protocol of contracts/verify.ts.
 * A verifier that fails or prints no reward is an outcome (reward null), not an agent error.
 */
export const verifyRun: CommandHandler<'verify.run'> = {
  run: async (p, ctx) => {
    refuseUnsignedCommand(ctx, 'verify.run');
    const collected = collectedDir(ctx.workloads, p.collected.env, p.collected.capture);
    if (!(await exists(collected))) throw new DenvError('NOT_FOUND', `nothing was collected for capture ${p.collected.capture} of env ${p.collected.env} on this host`);
    const rec = await liveService(ctx, p.env, p.service);
    const { cwd, env } = ctx.runtime.contextOf(rec);
    const verifier = await ctx.identities.forVerifier(p.env, rec.identity ?? null);
    const prefix = contextArgv([], verifier);
    const scratch = verifyRunDir(ctx.workloads, p.env);
    await rm(scratch, { recursive: true, force: true });
    await mkdir(path.dirname(scratch), { recursive: true, mode: 0o711 });
    await mkdir(scratch, { recursive: true, mode: 0o700 });
    if (verifier) {
      // The verifier runs as a user of its own (service-identities.ts forVerifier): it alone reads
      // the collected copy (a private copy made for this grading) and writes its reward file.
      // collect made `collected/` and `collected/<env>/` 0700: traversable now, still not listable.
      await chmod(path.dirname(path.dirname(collected)), 0o711);
      await chmod(path.dirname(collected), 0o711);
      await ownTree(collected, verifier);
      await ownDir(scratch, verifier);
    }
    const rewardFile = path.join(scratch, 'reward');
    const started = Date.now();
    try {
      const r = await run([...prefix, ...p.command], { cwd, env: { ...env, DENV_COLLECTED: collected, DENV_REWARD_FILE: rewardFile }, timeoutMs: p.timeout_ms, maxOutputBytes: 64 * 1024 });
      const ranFor = Date.now() - started;
      const reward = r.timedOut ? { reward: null, source: null } : rewardOf(r.stdout, await readRewardFile(rewardFile));
      return { ...reward, exit_code: r.exitCode, stdout: tail(r.stdout), stderr: tail(r.stderr), timed_out: r.timedOut, ran_for: ranFor };
    } catch (err) {
      if (!(err instanceof ExecError)) throw err;
      return { reward: null, source: null, exit_code: null, stdout: '', stderr: `${err.message}\n`, timed_out: false, ran_for: Date.now() - started };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
