/** The move kind's phases, in order: POST /v1/envs/{env}/move {to}, `denv env move <env> --to <host>`.
 *  The env keeps serving on its host until `switch`; a failure before it leaves it there. */
import type { PhaseDef } from '../phase.js';
import { health } from './health.js';
import { place } from './place.js';
import { retire } from './retire.js';
import { snapshot } from './snapshot.js';
import { start } from './start.js';
import { switchHost } from './switch.js';
import { transfer } from './transfer.js';
import { verdict } from './verdict.js';

export const MOVE_PHASES: readonly PhaseDef[] = [place, snapshot, transfer, start, health, switchHost, retire, verdict];
