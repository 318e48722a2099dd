import type { PhaseDef } from '../phase.js';
import { healthOfStarted } from '../versions.js';
import { stateOf } from './state.js';

/** Derived from the env.fork result: did every service of the fork pass its health check? */
export const health: PhaseDef = {
  name: 'health',
  run: async (ctx) => healthOfStarted(stateOf(ctx.state).clone!),
};
