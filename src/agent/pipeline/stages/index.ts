/**
 * The only ordered lists of stages (seed 004). `satisfies` ties each list to the names in
 * contracts/envelope.ts, so the contract and the code cannot drift apart.
 */
import { admit } from './admit.js';
import { dns } from './dns.js';
import { dnsReadiness, proxyReadiness } from './edge-readiness.js';
import { env } from './env.js';
import { health } from './health.js';
import { idempotency } from './idempotency.js';
import { persist } from './persist.js';
import { ports } from './ports.js';
import { preflightAdmit } from './preflight-admit.js';
import { proxy } from './proxy.js';
import { pull } from './pull.js';
import { recreate } from './recreate.js';
import { runtime } from './runtime.js';
import { verify } from './verify.js';
import type { Stage } from '../stage.js';

export const DEPLOY_STAGES: readonly Stage[] = [admit, verify, idempotency, pull, env, recreate, health, proxy, dns, persist];

export const PREFLIGHT_STAGES: readonly Stage[] = [runtime, preflightAdmit, ports, proxyReadiness, dnsReadiness];
