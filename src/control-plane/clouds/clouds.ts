/**
 * Clouds of a control plane (issue 14): the provider behind each cloud row, provisioning a machine
 * for a deployment (the `provision` phase), and deprovisioning machines nobody needs any more (the
 * deprovision sweep).
 *
 * A machine is recorded (`creating`) before its provider is asked to make it, keyed by the
 * deployment, so a provision resumed after a crash finds it and asks the provider again for the
 * same machine instead of making a second one. Its agent enrolls with a single-use key made for
 * that machine, which links the new host to it (agent-gateway.ts `hello`).
 */
import type { Server } from 'node:http';
import path from 'node:path';
import { DenvError, messageOf } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { parseSshTarget } from '../../lib/ssh/ssh-client.js';
import { createEnrollmentKey } from '../auth/enrollment-keys.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { markDeprovisioning, markRemoved } from '../store/host-removal.js';
import { serveControlSocket, type ControlSocket } from './control-socket.js';
import { DEFAULT_LOCAL_SUBNET, localProvider } from './local/local-provider.js';
import type { NamespacePlan } from './local/netns.js';
import { hetznerProvider, type HetznerConfig } from './hetzner/hetzner-provider.js';
import { manualProvider, type CloudProvider } from './provider.js';
import { sshProvider, type SshCloudConfig } from './ssh/ssh-provider.js';

export interface CloudRow {
  id: string;
  team: string;
  name: string;
  provider: string;
  config: Record<string, unknown>;
  deprovision: 'when_empty' | 'never';
  created_at: unknown;
}

export interface MachineRow {
  id: string;
  team: string;
  cloud: string;
  deployment: string | null;
  name: string;
  ref: string | null;
  ip: string | null;
  status: 'creating' | 'running' | 'destroying' | 'destroyed';
  host: string | null;
  detail: Record<string, unknown> | null;
}

/** Seed 000's message when nothing can give the deploy a host. */
export const NO_HOST_MESSAGE = 'no connected host and no cloud that can provision: enroll an agent (denv agent --enrollment-key …) or add a cloud (denv cloud add)';

/** What provision's evidence holds (seed 000). */
export interface Provisioned {
  readonly cloud: string;
  readonly provider: string;
  readonly ref: string;
  readonly ip: string;
  readonly name: string;
  readonly machine: string;
}

export class Clouds {
  private socket: Promise<ControlSocket> | null = null;
  /** Machines this process made whose agent it can see end (MadeMachine.ended), until they join. */
  private readonly ends = new Map<string, Promise<string>>();

  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly dataDir: string;
      readonly http: () => Server;
      /** Tell every replica a host changed (the gateway's hostChanged: a removed host's socket closes). */
      readonly hostChanged: (hostId: string) => Promise<void>;
      readonly log: (line: string) => void;
    },
  ) {}

  /** Where machines' files live: beside the 0700 data dir, traversable by services' users. */
  private get machinesRoot(): string {
    return `${path.resolve(this.deps.dataDir)}-machines`;
  }

  provider(cloud: Pick<CloudRow, 'id' | 'provider' | 'config'>): CloudProvider {
    if (cloud.provider === 'local') {
      return localProvider({
        root: this.machinesRoot,
        subnet: typeof cloud.config.subnet === 'string' ? cloud.config.subnet : DEFAULT_LOCAL_SUBNET,
        allowPaths: Array.isArray(cloud.config.allow_paths) ? (cloud.config.allow_paths as string[]) : [],
        controlSocket: () => this.controlSocket(),
        reserveAddress: (machine, choose) => this.reserveAddress(machine, choose),
      });
    }
    if (cloud.provider === 'ssh') {
      return sshProvider({
        config: cloud.config as unknown as SshCloudConfig,
        claim: (machine, targets) => this.claimTarget(machine, targets),
        savePinned: (text) => this.savePinned(cloud.id, text),
      });
    }
    if (cloud.provider === 'hetzner') return hetznerProvider(cloud.config as unknown as HetznerConfig);
    return manualProvider;
  }

  /** A local machine's address, chosen and recorded one provision at a time (a transaction-scoped advisory lock, whichever replica provisions). */
  private reserveAddress(machine: string, choose: (held: ReadonlySet<string>) => Promise<NamespacePlan>): Promise<NamespacePlan> {
    return this.deps.db.tx(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(hashtext('denv:local-machine-addresses'))");
      const held = new Set((await tx.query<{ ip: string }>("select ip from machines where ip is not null and status <> 'destroyed' and id <> $1", [machine])).map((r) => r.ip));
      const plan = await choose(held);
      await tx.query('update machines set ip = $2 where id = $1', [machine, plan.ip]);
      return plan;
    });
  }

  /** Reserve for `machine` the first of `targets` no other live machine of any ssh cloud holds
   *  (`root@h` and `root@h:22` are one machine; two clouds naming one machine never share it: the
   *  second would remove the first's agent). One claim at a time: a transaction-scoped advisory lock. */
  private claimTarget(machine: string, targets: readonly string[]): Promise<string | null> {
    const key = (t: string) => {
      const p = parseSshTarget(t);
      return p ? `${p.user}@${p.host}:${p.port}` : t;
    };
    return this.deps.db.tx(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(hashtext('denv:ssh-machines'))");
      const rows = await tx.query<{ ref: string }>("select m.ref from machines m join clouds c on c.id = m.cloud where c.provider = 'ssh' and m.id <> $1 and m.status <> 'destroyed' and m.ref is not null", [machine]);
      const held = new Set(rows.map((r) => key(r.ref)));
      const ref = targets.find((t) => !held.has(key(t))) ?? null;
      if (ref) await tx.query('update machines set ref = $2 where id = $1', [machine, ref]);
      return ref;
    });
  }

  /** Keep host keys an ssh session pinned: added to the cloud's known_hosts (lines already there stay). */
  private savePinned(cloud: string, text: string): Promise<void> {
    return this.deps.db.tx(async (tx) => {
      const rows = await tx.query<{ known: string | null }>("select config->>'known_hosts' as known from clouds where id = $1 for update", [cloud]);
      if (!rows[0]) return;
      const lines = (rows[0].known ?? '').split('\n').filter(Boolean);
      for (const line of text.split('\n')) if (line && !lines.includes(line)) lines.push(line);
      await tx.query("update clouds set config = jsonb_set(config, '{known_hosts}', to_jsonb($2::text)) where id = $1", [cloud, lines.map((l) => `${l}\n`).join('')]);
    });
  }

  /** Resolves with why `machine`'s agent ended, when this process can see it end (a local machine it
   *  made); null when it cannot. `join` races it against the agent's connection. */
  machineEnded(machine: string): Promise<string> | null {
    return this.ends.get(machine) ?? null;
  }

  /** `machine` joined (or its deployment gave up on it): stop watching for its end. */
  forgetEnd(machine: string): void {
    this.ends.delete(machine);
  }

  /** The control plane's socket file, served from the first call on (and at start when machines exist). */
  controlSocket(): Promise<string> {
    this.socket ??= serveControlSocket(this.deps.http(), path.join(this.machinesRoot, 'control.sock'));
    return this.socket.then((s) => s.path);
  }

  /** At start: machines an earlier run made reconnect through the socket file, so serve it again. */
  async resume(): Promise<void> {
    const live = await this.deps.db.query<{ id: string }>("select m.id from machines m join clouds c on c.id = m.cloud where c.provider = 'local' and m.status in ('creating', 'running') limit 1");
    if (live[0]) await this.controlSocket();
  }

  /**
   * The machine of `deployment`, made through `cloudName` (or the team's first cloud that can
   * provision). Throws DenvError CONFLICT with seed 000's message when no cloud can.
   */
  async provision(team: string, deployment: string, cloudName: string | null): Promise<Provisioned> {
    const { db } = this.deps;
    let machine = (await db.query<MachineRow>('select * from machines where deployment = $1', [deployment]))[0];
    const clouds = await db.query<CloudRow>('select * from clouds where team = $1 order by created_at, id', [team]);
    let cloud: CloudRow | undefined;
    if (machine) cloud = clouds.find((c) => c.id === machine!.cloud);
    else if (cloudName) {
      cloud = clouds.find((c) => c.name === cloudName || c.id === cloudName);
      if (!cloud) throw new DenvError('NOT_FOUND', `no cloud "${cloudName}" in this team (denv cloud ls)`);
      if (!this.provider(cloud).canProvision) throw new DenvError('CONFLICT', `cloud ${cloud.name} (${cloud.provider}) cannot provision: ${NO_HOST_MESSAGE}`);
    } else {
      cloud = clouds.find((c) => this.provider(c).canProvision);
      if (!cloud) throw new DenvError('CONFLICT', NO_HOST_MESSAGE);
    }
    if (!cloud) throw new DenvError('INTERNAL', `machine ${machine!.id}: its cloud is gone`);
    if (machine?.status === 'running' && machine.ref && machine.ip) return provisioned(cloud, machine);
    if (!machine) {
      const made = cloud;
      // Named under the cloud's row lock: two provisions at once never take one name.
      machine = await db.tx(async (tx) => {
        await tx.query('select id from clouds where id = $1 for update', [made.id]);
        const count = (await tx.query<{ n: string }>('select count(*) as n from machines where cloud = $1', [made.id]))[0]!.n;
        return (await tx.query<MachineRow>('insert into machines (id, team, cloud, deployment, name) values ($1, $2, $3, $4, $5) returning *', [newId('machine'), team, made.id, deployment, `${made.name}-${Number(count) + 1}`]))[0]!;
      });
    }
    const key = await createEnrollmentKey(db, team, 3600, true, `machine ${machine.name}`, machine.id);
    let made;
    try {
      made = await this.provider(cloud).create({ machine: machine.id, name: machine.name, enrollmentKey: key.key });
    } catch (err) {
      await db.query('update enrollment_keys set revoked_at = now() where id = $1', [key.id]);
      await db.query("update machines set status = 'destroyed', destroyed_at = now() where id = $1", [machine.id]);
      throw new DenvError('CONFLICT', `cloud ${cloud.name} (${cloud.provider}) could not make a machine: ${messageOf(err)}`);
    }
    if (made.ended) this.ends.set(machine.id, made.ended);
    const rows = await db.query<MachineRow>("update machines set status = 'running', ref = $2, ip = $3, detail = $4 where id = $1 returning *", [machine.id, made.ref, made.ip, JSON.stringify(made.detail)]);
    const out = provisioned(cloud, rows[0]!);
    await appendEvent(db, { team, subject: `dep:${deployment}`, type: 'host.provisioned', data: { ...out } });
    return out;
  }

  /**
   * Destroy the machines nobody needs: a provider host of a `when_empty` cloud with no env left on
   * it, and a machine whose deployment finished without its agent ever joining. The host goes
   * `deprovisioning` → `removed` (its credential revoked), the machine `destroyed`.
   */
  async sweepDeprovision(): Promise<number> {
    const { db } = this.deps;
    const idle = await db.query<MachineRow & { provider: string; config: Record<string, unknown>; cloud_name: string }>(
      `select m.*, c.provider, c.config, c.name as cloud_name from machines m join clouds c on c.id = m.cloud
       where m.status = 'running' and c.deprovision = 'when_empty'
         and not exists (select 1 from deployments d where d.id = m.deployment and d.status in ('pending', 'running'))
         and not exists (select 1 from envs e where e.host = m.host and e.status not in ('torn_down', 'separated'))
       order by m.created_at limit 5`,
    );
    for (const m of idle) {
      const claimed = await db.tx(async (tx) => {
        const rows = await tx.query<{ id: string }>("update machines set status = 'destroying' where id = $1 and status = 'running' returning id", [m.id]);
        if (!rows[0]) return false;
        if (m.host) {
          // Checked again under the host's row lock: a deploy placed meanwhile keeps the machine.
          const placed = await tx.query<{ id: string }>("select e.id from hosts h join envs e on e.host = h.id where h.id = $1 and e.status not in ('torn_down', 'separated') for update of h", [m.host]);
          if (placed[0]) {
            await tx.query("update machines set status = 'running' where id = $1", [m.id]);
            return false;
          }
          await markDeprovisioning(tx, { id: m.host, team: m.team }, { machine: m.id });
        }
        return true;
      });
      if (!claimed) continue;
      try {
        await this.provider({ id: m.cloud, provider: m.provider, config: m.config }).destroy({ ref: m.ref ?? '', detail: m.detail ?? {} });
      } catch (err) {
        // Tried again on the next pass.
        await db.query("update machines set status = 'running' where id = $1", [m.id]);
        this.deps.log(`deprovision ${m.name} (cloud ${m.cloud_name}): ${messageOf(err)}`);
        continue;
      }
      await db.tx(async (tx) => {
        await tx.query("update machines set status = 'destroyed', destroyed_at = now() where id = $1", [m.id]);
        if (m.host) await markRemoved(tx, { id: m.host, team: m.team }, { machine: m.id });
        await appendEvent(tx, { team: m.team, subject: `cloud:${m.cloud}`, type: 'host.deprovisioned', data: { machine: m.id, name: m.name, host: m.host, ref: m.ref } });
      });
      // A machine whose deployment gave up before `join` ran (cancelled, or the control plane
      // restarted) left its end watched: it is gone now.
      this.ends.delete(m.id);
      if (m.host) await this.deps.hostChanged(m.host);
      this.deps.log(`deprovisioned ${m.name} (cloud ${m.cloud_name}${m.host ? `, host ${m.host}` : ', never joined'})`);
    }
    return idle.length;
  }

  async close(): Promise<void> {
    const socket = await this.socket?.catch(() => null);
    await socket?.close();
  }
}

const provisioned = (cloud: CloudRow, m: MachineRow): Provisioned => ({ cloud: cloud.name, provider: cloud.provider, ref: m.ref!, ip: m.ip!, name: m.name, machine: m.id });
