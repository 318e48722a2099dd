import { DenvError } from '../../contracts/errors.js';
import { ExecError, run } from '../../lib/exec.js';
import { refuseUnsignedCommand } from '../envs/admit-process.js';
import type { CommandHandler } from './handler.js';

const OUTPUT_CAP = 64 * 1024;

/**
 * env.exec: run argv "in the context of" a running service: the working dir, environment, PORT
 * and DENV_VOLUME_* of its most recently started live process. It takes no env lock (it changes
 * nothing the agent manages). A program that cannot be started answers like a shell would
 * (exit 127 not found, 126 otherwise) rather than as an agent error: the command ran and failed.
 * stdout and stderr keep their last 64 KiB each.
 */
export const envExec: CommandHandler<'env.exec'> = {
  run: async (p, ctx) => {
    refuseUnsignedCommand(ctx, 'env.exec');
    const candidates = ctx.runtime.list(p.env).filter((r) => r.service === p.service && r.state !== 'exited');
    let target = null;
    for (const rec of candidates.reverse()) {
      if (await ctx.runtime.isAlive(rec)) {
        target = rec;
        break;
      }
    }
    if (!target) throw new DenvError('NOT_FOUND', `service ${p.service} of env ${p.env} is not running on this host`);
    const { cwd, env, prefix } = ctx.runtime.contextOf(target);
    try {
      const r = await run([...prefix, ...p.command], { cwd, env, timeoutMs: p.timeout_ms, maxOutputBytes: OUTPUT_CAP });
      return { exit: r.exitCode, stdout: r.stdout, stderr: r.stderr, timed_out: r.timedOut };
    } catch (err) {
      if (!(err instanceof ExecError)) throw err;
      return { exit: err.errno === 'ENOENT' ? 127 : 126, stdout: '', stderr: `${err.message}\n`, timed_out: false };
    }
  },
};
