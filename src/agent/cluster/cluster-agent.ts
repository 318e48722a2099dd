/**
 * `denv agent --kubernetes`: a cluster agent. It runs in (or beside) a Kubernetes cluster, dials
 * out to the control plane like a host agent (same link, credential and command record), reports
 * the cluster's facts in its hello, and applies what the control plane sends: seed 002's apply,
 * apply with replicas 0 and delete of exactly the named resources (cluster-commands.ts). It never
 * runs a process of its own and holds no datasets.
 *
 *   data dir → command store → cluster (kubeconfig) → facts → link → dispatcher + live status
 */
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { messageOf } from '../../contracts/errors.js';
import { CommandStore } from '../commands/command-store.js';
import { createDispatcher, type Dispatcher } from '../commands/dispatch.js';
import { openCluster } from '../kubernetes/open-cluster.js';
import { AgentLink } from '../link/link.js';
import { agentSocketUrl } from '../link/socket-url.js';
import { ReleasedEnvs } from '../released-envs.js';
import { CLUSTER_COMMANDS } from './cluster-commands.js';
import type { ClusterContext } from './cluster-context.js';
import { ClusterEnvs } from './cluster-envs.js';
import { clusterHostFacts } from './cluster-facts.js';
import { ClusterLiveStatus } from './cluster-live-status.js';

const DEFAULT_LIVE_STATUS_MS = 10_000;
const RETRANSMIT_AFTER_MS = 5000;

export interface ClusterAgentOptions {
  readonly control: string;
  readonly dataDir: string;
  readonly enrollmentKey?: string;
  /** Default: the cluster's name is the machine's hostname. */
  readonly name?: string;
  /** A kubeconfig file; default KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  readonly kubeconfig?: string;
  /** Where every env's objects go; default the kubeconfig context's namespace, else `default`. */
  readonly namespace?: string;
  readonly log: (line: string) => void;
}

export interface ClusterAgentHandle {
  /** Resolves after the first welcome; rejects when the agent cannot start (the cluster does not answer). */
  readonly hostId: Promise<string>;
  close(): Promise<void>;
}

export function startClusterAgent(opts: ClusterAgentOptions): ClusterAgentHandle {
  const { log } = opts;
  agentSocketUrl(opts.control); // a bad URL is a usage error, not something to retry
  const dataDir = path.resolve(opts.dataDir);
  let resolveHostId!: (id: string) => void;
  let rejectHostId!: (err: Error) => void;
  const hostId = new Promise<string>((resolve, reject) => ((resolveHostId = resolve), (rejectHostId = reject)));
  hostId.catch(() => {});
  let closed = false;
  let link: AgentLink | null = null;
  let live: ClusterLiveStatus | null = null;

  const ready = (async () => {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
    const store = new CommandStore(path.join(dataDir, 'commands'), log);
    await store.prune();
    const cluster = openCluster({ ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}), ...(opts.namespace ? { namespace: opts.namespace } : {}) });
    // The cluster must answer before the agent says hello: its facts are what the planner plans for.
    const facts = await cluster.facts();
    log(`cluster ${facts.version}, namespace ${facts.namespace}; ingress classes: ${facts.ingress_classes.join(', ') || 'none'}; cert-manager: ${facts.cert_manager ? 'yes' : 'no'}`);
    if (closed) return;
    const { interrupted, unacked } = await store.recover();
    for (const c of interrupted) log(`command ${c.id} ${c.kind} was cut short by a restart; it runs again when the control plane sends it again`);
    const ctx: ClusterContext = { dataDir, released: await ReleasedEnvs.open(dataDir), envs: await ClusterEnvs.open(dataDir), cluster, log };
    let dispatcher: Dispatcher | null = null;
    const activeLink: AgentLink = new AgentLink({
      control: opts.control,
      dataDir,
      name: opts.name ?? facts.namespace,
      enrollmentKey: opts.enrollmentKey,
      facts: clusterHostFacts(facts),
      log,
      onWelcome: (id, welcome) => {
        resolveHostId(id);
        dispatcher?.flush();
        live?.start(welcome.live_status_ms ?? DEFAULT_LIVE_STATUS_MS);
      },
      onRemoved: (message) => rejectHostId(new Error(message)),
      onCommand: (msg) => {
        dispatcher?.dispatch(msg).catch((err: unknown) => log(`command ${msg.id} could not be dispatched: ${messageOf(err)}`));
      },
      onAck: (id) => {
        dispatcher?.acknowledged(id).catch((err: unknown) => log(`command ${id}: cannot record its acknowledgement: ${messageOf(err)}`));
      },
      onHeartbeat: () => dispatcher?.retransmit(RETRANSMIT_AFTER_MS),
    });
    dispatcher = createDispatcher(ctx, store, (msg) => activeLink.send(msg), unacked, CLUSTER_COMMANDS);
    live = new ClusterLiveStatus(ctx, (msg) => activeLink.send(msg));
    link = activeLink;
    activeLink.start();
  })().catch((err: unknown) => {
    log(`cluster agent failed to start: ${messageOf(err)}`);
    rejectHostId(err instanceof Error ? err : new Error(messageOf(err)));
  });

  return {
    hostId,
    async close() {
      closed = true;
      await ready;
      live?.close();
      await (link as AgentLink | null)?.close();
      rejectHostId(new Error('agent closed before the control plane welcomed it'));
    },
  };
}
