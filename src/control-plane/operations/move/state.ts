import type { ArchiveFormat, Commands, TransferArchive } from '../../../contracts/protocol.js';

/** The move kind's parameters, set by the API: the host the env goes to. */
export interface MoveParams {
  readonly to: string;
}

export interface MoveState {
  /** The env's host when the move started, and the version it moves. */
  from?: string;
  to?: string;
  version?: string;
  format?: ArchiveFormat;
  snapshot?: Commands['env.snapshot']['result'] | null;
  archive?: TransferArchive | null;
  imported?: Commands['env.import']['result'] | null;
  started?: Commands['env.rollback']['result'];
  /** The env's host is `to` now: from here on a failure leaves it there. */
  switched?: boolean;
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as MoveParams;
export const stateOf = (s: Record<string, unknown>) => s as MoveState;

/** Per deployment, so a re-run of a phase finds what the first run made. */
export const moveSnapshotName = (deployment: string) => `move-${deployment}`;
export const transferIdOf = (deployment: string) => `tr_${deployment.replace(/^dep_/, '')}`;
