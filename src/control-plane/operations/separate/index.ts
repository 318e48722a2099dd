/** The separate kind's phases (DESIGN §4). */
import { release } from './release.js';
import { separateVerdict } from './verdict.js';

export const SEPARATE_PHASES = [release, separateVerdict] as const;
