/**
 * What a cluster agent applied, per env: the version and the names of its Deployments and
 * Ingresses, kept in `<dataDir>/cluster-envs.json` so live status and logs survive an agent
 * restart. Written after a successful apply, dropped after a teardown or a release.
 */
import path from 'node:path';
import type { KubeObject } from '../../contracts/kubernetes.js';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';

export interface ClusterEnv {
  readonly version: string;
  /** Deployment name → the denv service it runs. */
  readonly deployments: Readonly<Record<string, string>>;
  /** Deployment name → its first container port (live status shows it); absent in records before it. */
  readonly ports?: Readonly<Record<string, number>>;
  readonly ingresses: readonly string[];
}

export class ClusterEnvs {
  private constructor(private readonly file: string, private readonly envs: Map<string, ClusterEnv>) {}

  static async open(dataDir: string): Promise<ClusterEnvs> {
    const file = path.join(dataDir, 'cluster-envs.json');
    const stored = (await readJsonOrNull(file)) as Record<string, ClusterEnv> | null;
    return new ClusterEnvs(file, new Map(Object.entries(stored ?? {})));
  }

  list(): [string, ClusterEnv][] {
    return [...this.envs.entries()];
  }

  get(env: string): ClusterEnv | undefined {
    return this.envs.get(env);
  }

  /** Remember what an apply of `version` put in the cluster. */
  async applied(env: string, version: string, manifests: readonly KubeObject[]): Promise<void> {
    const deployments: Record<string, string> = {};
    const ports: Record<string, number> = {};
    for (const m of manifests) {
      if (m.kind !== 'Deployment') continue;
      deployments[m.metadata.name] = m.metadata.labels?.['denv.dev/service'] ?? m.metadata.name;
      const containers = (m.spec as { template?: { spec?: { containers?: { ports?: { containerPort?: number }[] }[] } } } | undefined)?.template?.spec?.containers ?? [];
      const port = containers[0]?.ports?.[0]?.containerPort;
      if (port) ports[m.metadata.name] = port;
    }
    const ingresses = manifests.filter((m) => m.kind === 'Ingress').map((m) => m.metadata.name);
    this.envs.set(env, { version, deployments, ports, ingresses });
    await this.save();
  }

  async forget(env: string): Promise<void> {
    if (this.envs.delete(env)) await this.save();
  }

  private save(): Promise<void> {
    return writeJsonAtomic(this.file, Object.fromEntries(this.envs), 0o600);
  }
}
