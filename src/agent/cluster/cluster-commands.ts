/**
 * The one list of what a cluster agent does: seed 002's apply / delete and their reads, plus
 * separate and logs. Any other kind (a host agent's) is answered BAD_REQUEST by the dispatcher.
 */
import { KUBE_PAYLOADS } from '../../contracts/kube-commands.js';
import type { CommandKind } from '../../contracts/protocol.js';
import type { CommandRegistry } from '../commands/dispatch.js';
import { PAYLOADS } from '../commands/payloads.js';
import type { ClusterContext } from './cluster-context.js';
import { clusterLogs } from './commands/cluster-logs.js';
import { clusterRelease } from './commands/cluster-release.js';
import { kubeApply } from './commands/kube-apply.js';
import { kubeDelete } from './commands/kube-delete.js';
import { kubeLive } from './commands/kube-live.js';
import { kubeStatus } from './commands/kube-status.js';
import { kubeWait } from './commands/kube-wait.js';

export const CLUSTER_COMMANDS: CommandRegistry<ClusterContext> = {
  handlers: {
    'kube.apply': kubeApply,
    'kube.wait': kubeWait,
    'kube.delete': kubeDelete,
    'kube.live': kubeLive,
    'kube.status': kubeStatus,
    'env.release': clusterRelease,
    'logs.request': clusterLogs,
  },
  payloads: { ...KUBE_PAYLOADS, 'env.release': PAYLOADS['env.release'], 'logs.request': PAYLOADS['logs.request'] },
  readOnly: new Set<CommandKind>(['kube.live', 'kube.status', 'logs.request']),
};
