import { DenvError } from '../../contracts/errors.js';
import type { CommandHandler } from './handler.js';

/** `logs.request`: the env's recent lines from the ring buffers; with `follow_ms`, also push new
 *  lines for that long (renewed by the control plane while someone watches). Read-only. */
export const logsRequest: CommandHandler<'logs.request'> = {
  async run({ env, lines, follow_ms }, ctx) {
    if (!ctx.telemetry) throw new DenvError('CONFLICT', 'this agent runs without telemetry');
    ctx.telemetry.logs.watch(env, follow_ms);
    return { env, lines: await ctx.telemetry.logs.snapshot(env, lines) };
  },
};
