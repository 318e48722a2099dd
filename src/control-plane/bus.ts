import { EventEmitter } from 'node:events';

/**
 * In-process notifications between the control plane's parts (never a source of truth: listeners
 * re-read the database). Topics: `deployment` (id changed), `command` (id finished), `host` (id
 * connected/disconnected), `kick` (work is waiting for the sweeps), `route` (command id to send if
 * this replica holds its host's socket), `telemetry` (env id: its live status, logs or samples
 * changed; the live streams re-read).
 */
export type Bus = EventEmitter<{ deployment: [string]; command: [string]; host: [string]; kick: []; route: [string]; telemetry: [string] }>;

export function createBus(): Bus {
  const bus = new EventEmitter() as Bus;
  bus.setMaxListeners(0);
  return bus;
}
