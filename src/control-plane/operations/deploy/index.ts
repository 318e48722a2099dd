/** The deploy kind's phases, in order (seed 000). */
import type { PhaseDef } from '../phase.js';
import { health } from './health.js';
import { ingress } from './ingress.js';
import { join } from './join.js';
import { place } from './place.js';
import { prepare } from './prepare.js';
import { provision } from './provision.js';
import { resolve } from './resolve.js';
import { snapshot } from './snapshot.js';
import { start } from './start.js';
import { verdict } from './verdict.js';
import { warm } from './warm.js';

export const DEPLOY_PHASES: readonly PhaseDef[] = [resolve, place, provision, join, prepare, start, health, warm, snapshot, ingress, verdict];
