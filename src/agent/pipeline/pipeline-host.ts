/**
 * Everything the deploy pipeline needs from its host, built once per agent: the host's own
 * configuration (identity, trusted keys, allowlists — never anything from the control plane),
 * the docker runtime (null when the engine does not answer), the one port registry, and the
 * durable stores (replay record, last-good records, env files on tmpfs, per-service locks).
 */
import os from 'node:os';
import path from 'node:path';
import type { DnsConfig, ProxyConfig } from '../../edge/edge-config.js';
import type { TlsMode } from '../../edge/proxy-provider.js';
import type { AgentConfig } from '../config/agent-config.js';
import { EdgeRelay } from '../edge/edge-relay.js';
import { publicAddresses } from '../edge/public-address.js';
import { AdmittedProcesses } from '../envelope/admitted-processes.js';
import { NonceStore } from '../envelope/nonce-store.js';
import { FileLocks } from '../locks/file-lock.js';
import type { PortRegistry } from '../ports.js';
import { DockerRuntime } from '../runtimes/docker/docker-runtime.js';
import { EnvFiles, defaultEnvDir } from '../runtimes/docker/env-files.js';
import { EnvHasher } from '../runtimes/docker/env-hash.js';
import { SlotStore } from '../runtimes/docker/slot-store.js';

/**
 * The edge as this host's pipeline sees it (DESIGN §8, docs/edge.md): the providers agent.yaml
 * configures for standalone deploys (control-plane deploys use the team's, through the deploy's
 * `ingress` phase), the edge relay every route dials, and the addresses names are published as.
 */
export interface HostEdge {
  readonly proxy: ProxyConfig | null;
  readonly dns: DnsConfig | null;
  readonly tls: TlsMode;
  readonly relay: EdgeRelay;
  readonly publicIp: readonly string[];
  readonly proxyBind: string | null;
}

export interface PipelineHost {
  readonly config: AgentConfig;
  readonly docker: DockerRuntime | null;
  readonly ports: PortRegistry;
  readonly nonces: NonceStore;
  /** Process services admitted from verified envelopes (process_runtime: signed). */
  readonly admitted: AdmittedProcesses;
  readonly slots: SlotStore;
  readonly envFiles: EnvFiles;
  readonly envHasher: EnvHasher;
  readonly locks: FileLocks;
  readonly edge: HostEdge;
  readonly log: (line: string) => void;
}

export interface PipelineHostOptions {
  readonly dataDir: string;
  readonly config: AgentConfig;
  readonly ports: PortRegistry;
  readonly log: (line: string) => void;
  /** Default: detect (the engine answers and a Compose is installed). */
  readonly docker?: DockerRuntime | null;
}

export async function openPipelineHost(o: PipelineHostOptions): Promise<PipelineHost> {
  const docker = o.docker !== undefined ? o.docker : await DockerRuntime.detect();
  return {
    config: o.config,
    docker,
    ports: o.ports,
    nonces: new NonceStore(o.dataDir),
    admitted: new AdmittedProcesses(o.dataDir),
    slots: new SlotStore(o.dataDir),
    envFiles: new EnvFiles(o.config.envDir ?? defaultEnvDir(o.dataDir)),
    envHasher: await EnvHasher.open(o.dataDir),
    locks: new FileLocks(path.join(o.dataDir, 'locks')),
    edge: {
      proxy: o.config.edge.proxy,
      dns: o.config.edge.dns,
      tls: o.config.edge.tls,
      relay: new EdgeRelay(o.dataDir, o.ports, o.log),
      publicIp: publicAddresses(o.config.publicIp, os.networkInterfaces()),
      proxyBind: o.config.proxyBind,
    },
    log: o.log,
  };
}
