/**
 * The process service's stages, in seed 004's order: the same names as an image service's
 * (pipeline/stages/index.ts), so both answer with the same list.
 */
import { recordingThrows, type ProcessStage } from '../stage.js';
import { admit } from './admit.js';
import { dns } from './dns.js';
import { env } from './env.js';
import { health } from './health.js';
import { idempotency } from './idempotency.js';
import { persist } from './persist.js';
import { proxy } from './proxy.js';
import { pull } from './pull.js';
import { recreate } from './recreate.js';
import { verify } from './verify.js';

export const PROCESS_STAGES: readonly ProcessStage[] = [admit, verify, idempotency, pull, env, recreate, health, proxy, dns, persist].map(recordingThrows);
