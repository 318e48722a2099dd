/** The start kind's phases (DESIGN §4). */
import { startHealth } from './health.js';
import { start } from './start.js';
import { startVerdict } from './verdict.js';

export const START_PHASES = [start, startHealth, startVerdict] as const;
