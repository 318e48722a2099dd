import { collectLiveStatus } from '../telemetry/live-status.js';
import type { CommandHandler } from './handler.js';

/** `status.refresh`: probe the env's workloads now and answer their live status. Read-only. */
export const statusRefresh: CommandHandler<'status.refresh'> = {
  async run({ env }, ctx) {
    return collectLiveStatus(ctx, env);
  },
};
