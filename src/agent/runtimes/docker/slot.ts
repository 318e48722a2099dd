/**
 * A slot is one image service the agent runs: `(scope, service)`, where the scope is the env id
 * for deploys from the control plane and `standalone` for `POST /deploy`. Each slot is one
 * Compose project with one service; deploys to a slot replace its container in place (seed 004
 * `recreate`) and keep its host port. Pure naming rules.
 */
import { createHash } from 'node:crypto';

export const STANDALONE_SCOPE = 'standalone';

export interface Slot {
  readonly scope: string;
  readonly service: string;
}

/** `env_x/web`: how the slot is named in messages and labels. */
export const slotKey = (s: Slot): string => `${s.scope}/${s.service}`;

const hash8 = (s: Slot): string => createHash('sha256').update(slotKey(s)).digest('hex').slice(0, 8);

/** A file-name-safe key, unique per slot (`env_x.web-1a2b3c4d`): lock, env-file dir and state dir names. */
export function slotFileKey(s: Slot): string {
  const safe = `${s.scope}.${s.service}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
  return `${safe}-${hash8(s)}`;
}

/**
 * The Compose project name: lowercase letters, digits and `-` only (Compose v1 silently drops
 * anything else, v2 refuses it), unique per slot *and per agent* (`agentTag`, from its data dir):
 * two agents on one engine — tests, or hosts sharing a machine — never share a project.
 */
export function composeProjectName(s: Slot, agentTag: string): string {
  const base = `denv-${s.scope}-${s.service}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').slice(0, 50).replace(/-$/, '');
  return `${base}-${createHash('sha256').update(`${agentTag}/${slotKey(s)}`).digest('hex').slice(0, 8)}`;
}

/**
 * The Docker network the image services of `scope` share (`network: bridge`): `denv-<env id>` for
 * an env, as under Compose one network per app, where service names resolve. Standalone slots of
 * one agent share `denv-standalone-<agent tag>` (two agents on one engine never share it).
 */
export function envNetworkName(scope: string, agentTag: string): string {
  const base = `denv-${scope.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 100);
  return scope === STANDALONE_SCOPE ? `${base}-${agentTag}` : base;
}

/** A short tag naming one agent (its data dir) in project names and container labels. */
export const agentTagOf = (dataDir: string): string => createHash('sha256').update(dataDir).digest('hex').slice(0, 8);

/** Its owner string in `ports.json`. Never starts with `<env>/`, so the process runtime's per-version port release never frees it. */
export const slotPortOwner = (s: Slot): string => `docker/${slotKey(s)}`;
