/**
 * The registry of command handlers: the only list of what the agent can do. A `Record` over
 * `HostCommandKind`, so a kind added to protocol.ts fails the build here until it is handled (a
 * cluster agent's `kube.*` kinds are its own: agent/kubernetes/).
 */
import type { HostCommandKind } from '../../contracts/protocol.js';
import { envCreate } from './env-create.js';
import { envDestroy } from './env-destroy.js';
import { envEdge } from './env-edge.js';
import { envExec } from './env-exec.js';
import { envExport } from './env-export.js';
import { envImport } from './env-import.js';
import { envFork } from './env-fork.js';
import { envResume } from './env-resume.js';
import { envRollback } from './env-rollback.js';
import { envSnapshot } from './env-snapshot.js';
import { envRelease } from './env-release.js';
import { envStop } from './env-stop.js';
import { envPruneSnapshots } from './env-prune-snapshots.js';
import { envSnapshots } from './env-snapshots.js';
import type { CommandHandler } from './handler.js';
import { verifyCollect } from './verify-collect.js';
import { verifyRun } from './verify-run.js';
import { logsRequest } from './logs-request.js';
import { statusRefresh } from './status-refresh.js';

export const HANDLERS: { readonly [K in HostCommandKind]: CommandHandler<K> } = {
  'env.create': envCreate,
  'env.rollback': envRollback,
  'env.snapshot': envSnapshot,
  'env.exec': envExec,
  'env.destroy': envDestroy,
  'env.fork': envFork,
  'env.resume': envResume,
  'verify.collect': verifyCollect,
  'verify.run': verifyRun,
  'env.stop': envStop,
  'env.release': envRelease,
  'logs.request': logsRequest,
  'status.refresh': statusRefresh,
  'env.prune_snapshots': envPruneSnapshots,
  'env.snapshots': envSnapshots,
  'env.edge': envEdge,
  'env.export': envExport,
  'env.import': envImport,
};
