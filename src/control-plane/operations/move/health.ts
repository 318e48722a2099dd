import type { PhaseDef } from '../phase.js';
import { healthOfStarted } from '../versions.js';
import { stateOf } from './state.js';

/** Derived from the start on the new host: did every service pass its health check there? */
export const health: PhaseDef = {
  name: 'health',
  run: async (ctx) => healthOfStarted(stateOf(ctx.state).started!),
};
