/** What the snapshot kind's phases leave for later phases (the deployment's resumable state). */
export interface SnapshotState {
  /** The env's current version when the snapshot started: kept on failure. */
  previous_version?: string | null;
  /** The version this snapshot creates (same spec as `previous_version`). */
  version?: string;
  host?: string;
  snapshot?: string;
}

export const stateOf = (s: Record<string, unknown>) => s as SnapshotState;
