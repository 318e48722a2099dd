/** The stop kind's phases (DESIGN §4). */
import { stop } from './stop.js';
import { stopVerdict } from './verdict.js';

export const STOP_PHASES = [stop, stopVerdict] as const;
