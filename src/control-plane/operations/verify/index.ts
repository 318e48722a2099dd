/** The verify kind's phases, in order (seed 000): POST /v1/envs/{env}/verify {resume?}. */
import type { PhaseDef } from '../phase.js';
import { clone } from './clone.js';
import { collect } from './collect.js';
import { grade } from './grade.js';
import { snapshot } from './snapshot.js';
import { stop } from './stop.js';
import { verdict } from './verdict.js';

export const VERIFY_PHASES: readonly PhaseDef[] = [stop, collect, snapshot, clone, grade, verdict];
