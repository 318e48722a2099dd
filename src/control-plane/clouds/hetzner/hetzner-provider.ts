/**
 * The `hetzner` cloud (issue 14): a machine is a Hetzner Cloud server whose first boot
 * (cloud-init.ts) installs Node.js if needed, downloads denv from the control plane and installs
 * the agent as a service, enrolled with the machine's key. The server carries the labels
 * `denv-machine=<machine id>` and `managed-by=denv`: the first lets a create called again for the
 * same machine find what an earlier, interrupted call made; the second lets an operator list
 * everything denv made (`listMachines`).
 *
 * Creating and deleting are asynchronous at Hetzner: each answers with actions, which are polled
 * (GET /actions/{id}) until they succeed, fail, or the deadline passes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CloudProvider, MachineOrder, MadeMachine } from '../provider.js';
import { cloudInit } from './cloud-init.js';
import { hetznerApi, isNotFound, type CreateServerRequest, type HetznerAction, type HetznerApi, type HetznerServer } from './hetzner-api.js';

export const DEFAULT_HETZNER_API_URL = 'https://api.hetzner.cloud/v1';
export const DEFAULT_INSTALL_DIR = '/opt/denv';
/** The label naming the denv machine a server is (its value: the machine's record id). */
export const MACHINE_LABEL = 'denv-machine';
/** The label on every server denv makes. */
export const MANAGED_LABEL = 'managed-by';

export interface HetznerConfig {
  readonly token: string;
  readonly api_url: string;
  /** Location name (fsn1, nbg1, hel1, ash, hil, sin …). */
  readonly location: string;
  /** Server type name (cx22, cax11 …). */
  readonly server_type: string;
  /** Image name or id (ubuntu-24.04 …): one with curl, tar and bash, as Hetzner's Linux images have. */
  readonly image: string;
  /** SSH keys (names or ids in the project) put on the server for root. */
  readonly ssh_keys?: readonly string[];
  /** The control plane's URL as the machine reaches it. */
  readonly control_url: string;
  readonly install_dir?: string;
}

export interface HetznerProviderOptions {
  /** Between two looks at a running action (default 1 s). */
  readonly pollMs?: number;
  /** How long a create or a destroy may wait for Hetzner, in all (default 5 minutes). */
  readonly timeoutMs?: number;
}

/**
 * The server's name: the host's name and the end of the machine's id. Hetzner wants a project's
 * server names unique, and two teams' clouds of one name (or one cloud's numbering restarted) must
 * not collide; a hostname label is 63 characters at most.
 */
export function serverName(order: Pick<MachineOrder, 'name' | 'machine'>): string {
  const suffix = order.machine.replace(/^[a-z]+_/, '').slice(-8);
  return `${order.name.slice(0, 63 - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

/** The create request for `order` (pure). */
export function createServerRequest(config: HetznerConfig, order: MachineOrder): CreateServerRequest {
  return {
    name: serverName(order),
    server_type: config.server_type,
    image: config.image,
    location: config.location,
    start_after_create: true,
    user_data: cloudInit({ machine: order.machine, name: order.name, enrollmentKey: order.enrollmentKey, controlUrl: config.control_url, installDir: config.install_dir ?? DEFAULT_INSTALL_DIR }),
    labels: { [MACHINE_LABEL]: order.machine, [MANAGED_LABEL]: 'denv' },
    public_net: { enable_ipv4: true, enable_ipv6: true },
    ...(config.ssh_keys?.length ? { ssh_keys: config.ssh_keys } : {}),
  };
}

export function hetznerProvider(config: HetznerConfig, opts: HetznerProviderOptions = {}): CloudProvider {
  const api = hetznerApi({ token: config.token, apiUrl: config.api_url });
  const pollMs = opts.pollMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
  return {
    canProvision: true,
    async create(order: MachineOrder): Promise<MadeMachine> {
      const waiter = actionWaiter(api, pollMs, timeoutMs);
      // What an earlier call for this machine left (it crashed, or failed before recording the
      // server): deleted first, which also frees the server's name for the new one.
      for (const old of await allServers(api, `${MACHINE_LABEL}=${order.machine}`)) await deleteServer(api, old, waiter);
      const made = await api.createServer(createServerRequest(config, order));
      const what = nameOf(made.server);
      try {
        for (const action of [made.action, ...made.next_actions]) await waiter(action, what);
        const server = await api.getServer(made.server.id);
        const ip = server.public_net.ipv4?.ip;
        if (!ip) throw new Error(`hetzner: ${what} has no public IPv4`);
        return { ref: String(server.id), ip, detail: { server_id: server.id, location: config.location, server_type: config.server_type, image: config.image } };
      } catch (err) {
        // When create throws the control plane forgets the machine, so the server is not left
        // running (and billed) behind. Should this delete fail too, the next create for the
        // machine finds the server by its label, and listMachines shows it.
        await api.deleteServer(made.server.id).catch(() => undefined);
        throw err;
      }
    },
    async destroy(machine) {
      const id = serverId(machine.ref);
      const waiter = actionWaiter(api, pollMs, timeoutMs);
      let action: HetznerAction;
      try {
        action = await api.deleteServer(id);
      } catch (err) {
        if (isNotFound(err)) return; // already gone
        throw err;
      }
      await waiter(action, `server ${id}`);
    },
  };
}

/** What denv made in the project (label `managed-by=denv`), every page of it. */
export async function listMachines(config: Pick<HetznerConfig, 'token' | 'api_url'>): Promise<{ ref: string; ip: string | null; machine: string }[]> {
  const api = hetznerApi({ token: config.token, apiUrl: config.api_url });
  return (await allServers(api, `${MANAGED_LABEL}=denv`)).map((s) => ({ ref: String(s.id), ip: s.public_net.ipv4?.ip ?? null, machine: s.labels[MACHINE_LABEL] ?? '' }));
}

/** The servers matching `labelSelector`, following the pages (50 a page, the API's most). */
async function allServers(api: HetznerApi, labelSelector: string): Promise<HetznerServer[]> {
  const out: HetznerServer[] = [];
  for (let page: number | null = 1; page !== null; ) {
    const answer = await api.listServers({ label_selector: labelSelector, page, per_page: 50 });
    out.push(...answer.servers);
    page = answer.meta.pagination.next_page;
  }
  return out;
}

async function deleteServer(api: HetznerApi, server: HetznerServer, waiter: Waiter): Promise<void> {
  let action: HetznerAction;
  try {
    action = await api.deleteServer(server.id);
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  await waiter(action, nameOf(server));
}

const nameOf = (s: HetznerServer) => `server ${s.name} (id ${s.id})`;

function serverId(ref: string): number {
  if (!/^[1-9][0-9]*$/.test(ref)) throw new Error(`hetzner: "${ref}" is not a server id`);
  return Number(ref);
}

type Waiter = (action: HetznerAction, what: string) => Promise<void>;

/**
 * Waits for actions until each succeeds; one that ends in error, or the deadline (`timeoutMs`
 * from now, shared by every action waited for), throws naming `what` the action was for.
 */
function actionWaiter(api: HetznerApi, pollMs: number, timeoutMs: number): Waiter {
  const deadline = Date.now() + timeoutMs;
  return async (first, what) => {
    let action = first;
    while (action.status === 'running') {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`hetzner: ${what}: ${action.command} (action ${action.id}) still running after ${timeoutMs} ms`);
      await sleep(Math.min(pollMs, left));
      action = await api.getAction(action.id);
    }
    if (action.status === 'error') throw new Error(`hetzner: ${what}: ${action.command} failed: ${action.error?.code ?? 'error'}: ${action.error?.message ?? 'no message'}`);
  };
}
