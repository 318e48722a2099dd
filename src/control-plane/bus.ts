import { EventEmitter } from 'node:events';

import type { Phase } from '../contracts/domain.js';

/**
 * In-process notifications between the control plane's parts (never a source of truth: listeners
 * re-read the database). Topics: `deployment` (id changed), `command` (id finished), `host` (id
 * connected/disconnected), `kick` (work is waiting for the sweeps), `aws-vending` (an AWS account
 * waits to be vended: the vending sweep only, not woken by every kick), `route` (command id to send if
 * this replica holds its host's socket), `telemetry` (env id: its live status, logs or samples
 * changed; the live streams re-read).
 *
 * `output` carries lines a build printed on this replica's agent socket, for the deployment's
 * live streams here (they are also stored as `deployment.output` events, which every replica reads).
 *
 * One exception: `progress` carries what this replica's engine has just committed of a deployment
 * it runs (kind, status, phases, exactly as stored), emitted after the commit, so the /metrics
 * observer needs no read per transition (it made ~24 per deploy; bench/load.mjs).
 */
export interface DeploymentProgress {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly phases: readonly Phase[];
}

/** Lines a service's build printed while a deployment's command ran (agent commands/command-output.ts). */
export interface DeploymentOutput {
  /** The `deployment.output` event that holds these lines. */
  readonly event: number;
  readonly service: string;
  readonly lines: readonly string[];
}

export type Bus = EventEmitter<{ deployment: [string]; output: [string, DeploymentOutput]; progress: [DeploymentProgress]; command: [string]; host: [string]; kick: []; 'aws-vending': []; route: [string]; telemetry: [string] }>;

export function createBus(): Bus {
  const bus = new EventEmitter() as Bus;
  bus.setMaxListeners(0);
  return bus;
}
