/**
 * The last-good record of each slot (seed 004 `persist`): what is running there and was verified
 * and healthy — digest, env hash, edge state — and the deploy before it, which is what a failed
 * health check rolls back to. `<dataDir>/docker/<slot file key>/record.json`, written atomically
 * (temp file + rename), so a crash leaves the old record or the new one.
 *
 * The record holds no secret: env values live only in the env files on tmpfs (it keeps their
 * paths and the keyed hash).
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HealthSpec } from '../../../contracts/spec.js';
import { readJsonOrNull, writeJsonAtomic } from '../../files.js';
import { agentTagOf, composeProjectName, envNetworkName, slotFileKey, type Slot } from './slot.js';

export interface EdgeState {
  readonly proxy: { readonly provider: string; readonly status: 'ok' | 'skipped' | 'failed' };
  readonly dns: { readonly provider: string; readonly status: 'ok' | 'skipped' | 'failed' };
  readonly hostnames: readonly string[];
}

/** One deploy of a slot, as it ran. */
export interface DeployedService {
  /** `repo@sha256:…` */
  readonly image: string;
  readonly repository: string;
  readonly digest: string;
  readonly env_hash: string;
  /** The env file on tmpfs (null when the env is empty). */
  readonly env_file: string | null;
  readonly env_keys: number;
  /** Hash of everything else that shapes the container (network, mounts, health, command …). */
  readonly config_hash: string;
  readonly port: number;
  /** The Compose file text that ran it (no secrets), so a rollback restores exactly this. */
  readonly compose: string;
  readonly health: HealthSpec;
  readonly edge: EdgeState;
  /** The env version it belongs to (control-plane deploys), null for standalone deploys. */
  readonly version: string | null;
  /** Whether it came from a verified envelope (false only on hosts with require_signature off). */
  readonly signed: boolean;
  readonly deployed_at: string;
}

export interface SlotRecord {
  readonly scope: string;
  readonly service: string;
  readonly project: string;
  readonly current: DeployedService | null;
  readonly previous: DeployedService | null;
}

export class SlotStore {
  readonly root: string;
  /** Names this agent in Compose project names and the `dev.denv.agent` container label. */
  readonly agentTag: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'docker');
    this.agentTag = agentTagOf(path.resolve(dataDir));
  }

  /** The slot's Compose project on this agent. */
  projectOf(slot: Slot): string {
    return composeProjectName(slot, this.agentTag);
  }

  /** The network the slots of `scope` share (bridge networking). */
  networkOf(scope: string): string {
    return envNetworkName(scope, this.agentTag);
  }

  /** Labels of that network: which agent made it, for which scope. */
  networkLabels(scope: string): Record<string, string> {
    return { 'dev.denv.agent': this.agentTag, 'dev.denv.scope': scope };
  }

  dirOf(slot: Slot): string {
    return path.join(this.root, slotFileKey(slot));
  }

  composeFileOf(slot: Slot): string {
    return path.join(this.dirOf(slot), 'compose.yml');
  }

  async read(slot: Slot): Promise<SlotRecord | null> {
    return (await readJsonOrNull(path.join(this.dirOf(slot), 'record.json'))) as SlotRecord | null;
  }

  /** Replace the slot's record atomically. */
  async write(slot: Slot, current: DeployedService | null, previous: DeployedService | null): Promise<SlotRecord> {
    const record: SlotRecord = { scope: slot.scope, service: slot.service, project: this.projectOf(slot), current, previous };
    await writeJsonAtomic(path.join(this.dirOf(slot), 'record.json'), record, 0o600);
    return record;
  }

  /** Forget the slot: its record and compose file. */
  async remove(slot: Slot): Promise<void> {
    await rm(this.dirOf(slot), { recursive: true, force: true });
  }

  /** Every slot with a record (all scopes, or one). */
  async list(scope?: string): Promise<SlotRecord[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const out: SlotRecord[] = [];
    for (const name of names) {
      const rec = (await readJsonOrNull(path.join(this.root, name, 'record.json')).catch(() => null)) as SlotRecord | null;
      if (rec && (scope === undefined || rec.scope === scope)) out.push(rec);
    }
    return out;
  }
}
