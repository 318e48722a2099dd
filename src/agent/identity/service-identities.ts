/**
 * The host's policy for process services (agent.yaml; docs/security.md) and the identity each
 * service gets under it (identity.ts). One object per agent, in the AgentContext.
 */
import { readdir, readFile } from 'node:fs/promises';
import { DenvError } from '../../contracts/errors.js';
import { isUnderAny } from '../files.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { canSwitchUsers, resolveUser, type Identity } from './identity.js';
import { DYNAMIC_UID_MAX, DYNAMIC_UID_MIN, UidRegistry } from './uid-registry.js';
import type { PortRange } from '../ports.js';
import type { ProcessRuntimeMode } from '../config/agent-config.js';

export interface ProcessPolicy {
  /** `disabled`: process services are refused on this host; `signed`: only signed ones run (envs/admit-process.ts). */
  readonly processRuntime: ProcessRuntimeMode;
  /** `user: root` (or uid 0) allowed. */
  readonly runAsRoot: boolean;
  /** Host paths a service may use as working_dir besides its env's own dir (prefixes). */
  readonly allowPaths: readonly string[];
  /** Host ports a Compose `ports: "H:C"` may publish as written (default: none, the agent picks). */
  readonly publishedPorts?: readonly PortRange[];
}

export const DEFAULT_PROCESS_POLICY: ProcessPolicy = { processRuntime: 'enabled', runAsRoot: false, allowPaths: [] };

export class ServiceIdentities {
  private readonly uids: UidRegistry | null;

  constructor(
    agentDir: string,
    readonly policy: ProcessPolicy = DEFAULT_PROCESS_POLICY,
    /** false in contexts that run everything as the agent (unit tests of supervision). */
    readonly switchUsers = canSwitchUsers(),
  ) {
    this.uids = switchUsers ? new UidRegistry(agentDir) : null;
  }

  /** Who `spec` runs as in `env`; null: as the agent itself. Throws AGENT_ERROR when the host refuses it. */
  async forService(env: string, name: string, spec: ServiceSpec): Promise<Identity | null> {
    if (spec.image !== null) return null;
    if (this.policy.processRuntime === 'disabled') throw new DenvError('AGENT_ERROR', `service ${name}: process services are disabled on this host (agent config process_runtime: disabled)`);
    const user = spec.user ?? null;
    if (!this.switchUsers || !this.uids) {
      if (user === null) return null;
      const me = await resolveUser(String(process.getuid?.() ?? 0));
      const wanted = await resolveUser(user);
      if (wanted.uid !== me.uid) throw new DenvError('AGENT_ERROR', `service ${name}: user "${user}" cannot be honoured: this agent runs as uid ${me.uid} and cannot switch users`);
      return null;
    }
    if (user !== null) {
      const identity = await resolveUser(user);
      if ((identity.uid === 0 || identity.gid === 0) && !this.policy.runAsRoot) {
        throw new DenvError('AGENT_ERROR', `service ${name}: user "${user}" is root${identity.uid === 0 ? '' : "'s group"}, which this host does not allow (agent config run_as_root)`);
      }
      // Another env's uid would reach that env's files and processes.
      if (identity.uid >= DYNAMIC_UID_MIN && identity.uid <= DYNAMIC_UID_MAX && identity.uid !== (await this.uids.uidFor(env))) {
        throw new DenvError('AGENT_ERROR', `service ${name}: user "${user}" is in the range denv gives to envs (${DYNAMIC_UID_MIN}-${DYNAMIC_UID_MAX}) and is not this env's`);
      }
      return identity;
    }
    const uid = await this.uids.uidFor(env);
    return { uid, gid: uid, name: null };
  }

  /** The uid services of `env` run as when they name no `user:` (null: this agent runs everything as itself). */
  async envIdentity(env: string): Promise<Identity | null> {
    if (!this.uids) return null;
    const uid = await this.uids.uidFor(env);
    return { uid, gid: uid, name: null };
  }

  /**
   * The verifier of `verify` in grader env `env`: a uid of its own, so the code under test
   * (running in the grader fork as the grader's uid) can neither read its environment nor touch
   * the collected copy or the reward file; the grader's group, so it can read the grader
   * service's own dir (0750). Null when the grader runs as the agent itself.
   */
  async forVerifier(env: string, grader: Identity | null): Promise<Identity | null> {
    if (!grader || !this.uids) return null;
    const uid = await this.uids.uidFor(verifierKey(env));
    return { uid, gid: grader.gid === 0 ? uid : grader.gid, name: null }; // never root's group

  }

  /** A fork runs as its source's uid (uid-registry.ts). */
  async inherit(from: string, env: string): Promise<void> {
    await this.uids?.inherit(from, env);
  }

  /**
   * `env` is gone: its uid goes back to the pool once no fork uses it, and before that, anything
   * still running as it (a process that left its process group) is killed, so the next env given
   * that uid inherits nothing.
   */
  async release(env: string): Promise<void> {
    for (const key of [env, verifierKey(env)]) {
      const freed = (await this.uids?.release(key)) ?? null;
      if (freed !== null) await killUid(freed);
    }
  }

  /** Whether a working_dir outside the env's own dir is allowed here. */
  allowsPath(dir: string): boolean {
    return isUnderAny(dir, this.policy.allowPaths);
  }
}

/** SIGKILL every process whose real uid is `uid` (read from /proc/<pid>/status). */
async function killUid(uid: number): Promise<void> {
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) {
      try {
        process.kill(Number(name), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** The registry key of an env's verifier uid. */
function verifierKey(env: string): string {
  return `${env}~verifier`;
}
