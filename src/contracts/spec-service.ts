/**
 * One Compose service → its `ServiceSpec` (the honoured fields of compose-fields.ts). Problems
 * are collected in `ctx.problems` with their paths; a service with problems still yields what
 * could be read, so every problem of a file is reported in one round.
 */
import { parseDuration } from './duration.js';
import { splitCommand } from './spec-command.js';
import { isMap, type Problems } from './spec-problems.js';
import {
  DEPENDS_CONDITIONS,
  RESTART_POLICIES,
  type BindMount,
  type BuildSpec,
  type Dependency,
  type DependsCondition,
  type FileGrant,
  type HealthSpec,
  type PackedTree,
  type PortSpec,
  type ResourceLimits,
  type RestartPolicy,
  type ServiceSpec,
  type VolumeMount,
} from './spec-types.js';
import { normalizeServiceXDenv } from './spec-x-denv.js';

export interface ServiceContext {
  /** Declared top-level names. */
  readonly volumes: readonly string[];
  readonly networks: readonly string[];
  readonly secrets: readonly string[];
  readonly configs: readonly string[];
  /** Files the CLI packed, by the absolute path they had where the Compose file was loaded. */
  readonly packed: Readonly<Record<string, PackedTree>>;
  /** Out: contents the version carries (`bind:<path>` entries are added here). */
  readonly files: Record<string, PackedTree>;
  readonly problems: Problems;
  readonly ignored: string[];
  readonly services: readonly string[];
}

const ALIVE_FOR_MS = 1000;

/**
 * Variables that make the dynamic loader run code of the caller's choosing (glibc's "unsecure"
 * list): refused in a process service's environment (docs/security.md).
 */
const LOADER_VARIABLES = /^(LD_[A-Z_]*|GCONV_PATH|GETCONF_DIR|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_TRACE|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TZDIR)$/;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** `512m`, `1g`, `1.5GB`, `1048576` → bytes; null when unreadable. */
export function parseBytes(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)b?$/i.exec(value.trim());
  if (!m) return null;
  const unit = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2]!.toLowerCase() as '' | 'b' | 'k' | 'm' | 'g' | 't'];
  return Math.round(Number(m[1]) * unit);
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function environmentOf(input: unknown, path: string, processService: boolean, problems: Problems): Record<string, string> {
  const env: Record<string, string> = {};
  if (input === undefined || input === null) return env;
  const put = (key: string, value: string, at: string) => {
    if (!ENV_KEY.test(key)) problems.add(at, `"${key}" is not a variable name (letters, digits, _ . -; not starting with a digit)`);
    else if (processService && LOADER_VARIABLES.test(key)) problems.add(at, `${key} is refused: it makes the dynamic loader run code of the caller's choosing (docs/security.md)`);
    else if (value.includes('\0')) problems.add(at, 'values cannot contain NUL');
    else env[key] = value;
  };
  if (Array.isArray(input)) {
    input.forEach((entry, i) => {
      const s = text(entry);
      const eq = s?.indexOf('=') ?? -1;
      if (s === null || eq <= 0) problems.add(`${path}.${i}`, 'expected KEY=VALUE');
      else put(s.slice(0, eq), s.slice(eq + 1), `${path}.${i}`);
    });
  } else if (isMap(input)) {
    for (const [k, v] of Object.entries(input)) {
      const s = v === null ? '' : text(v);
      if (s === null) problems.add(`${path}.${k}`, 'expected a string, number or boolean');
      else put(k, s, `${path}.${k}`);
    }
  } else problems.add(path, 'expected a mapping or a list of KEY=VALUE');
  return env;
}

function argvOf(input: unknown, path: string, problems: Problems): string[] | null {
  if (input === undefined || input === null) return null;
  if (typeof input === 'string') return problems.catch(() => splitCommand(input, path)) ?? null;
  if (Array.isArray(input) && input.every((w) => typeof w === 'string' || typeof w === 'number')) return input.map(String);
  problems.add(path, 'expected a string or a list of strings');
  return null;
}

function healthOf(input: Record<string, unknown>, path: string, image: boolean, http: HealthSpec | null, problems: Problems, ignored: string[]): HealthSpec {
  const check = input.healthcheck;
  if (isMap(check) && check.retries !== undefined && (typeof check.retries !== 'number' || !Number.isInteger(check.retries) || check.retries < 0)) {
    problems.add(`${path}.healthcheck.retries`, 'expected a whole number ≥ 0');
  }
  if (isMap(check) && check.disable !== true && check.test !== undefined) {
    const at = `${path}.healthcheck`;
    if (check.start_interval !== undefined) ignored.push(`${at}.start_interval`);
    let test: string[] | null = null;
    const t = check.test;
    if (typeof t === 'string') test = image ? ['CMD-SHELL', t] : (problems.catch(() => splitCommand(t, `${at}.test`)) ?? null);
    else if (Array.isArray(t) && t.every((w) => typeof w === 'string')) {
      if (t[0] === 'CMD') test = t.slice(1);
      else if (t[0] === 'CMD-SHELL') {
        if (image) test = t.slice(); // run by Docker inside the container
        else problems.add(`${at}.test`, 'CMD-SHELL needs a shell; a process service takes ["CMD", program, args…]');
      } else if (t[0] === 'NONE') test = [];
      else problems.add(`${at}.test`, 'expected ["CMD", …], ["CMD-SHELL", …], ["NONE"] or a command string');
    } else problems.add(`${at}.test`, 'expected a string or a list of strings');
    const ms = (key: string, dflt: string): number => {
      const v = check[key];
      if (v === undefined) return parseDuration(dflt)!;
      const d = typeof v === 'string' || typeof v === 'number' ? parseDuration(v) : null;
      if (d === null) problems.add(`${at}.${key}`, 'expected a duration such as 10s or 1m30s');
      return d ?? parseDuration(dflt)!;
    };
    const retries = check.retries ?? 3;
    if (test && test.length > 0) {
      return { kind: 'command', test, interval_ms: ms('interval', '1s'), timeout_ms: ms('timeout', '30s'), retries: typeof retries === 'number' ? retries : 3, start_period_ms: ms('start_period', '0s') };
    }
  }
  return http ?? { kind: 'alive', for_ms: ALIVE_FOR_MS };
}

function portNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

const PORT_HELP = 'expected a port such as 8080, "8080:80", "127.0.0.1:8080:80/tcp" or {target, published}';

/** `ports` (short and long syntax) → container ports and the host ports asked for. */
function portsOf(input: unknown, path: string, problems: Problems, ctx_ignored: string[]): PortSpec[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) {
    problems.add(path, 'expected a list');
    return [];
  }
  const out: PortSpec[] = [];
  input.forEach((entry, i) => {
    const at = `${path}.${i}`;
    if (isMap(entry)) {
      // The agent publishes on 127.0.0.1 and speaks TCP; say so where the file asks otherwise.
      if (entry.host_ip !== undefined && entry.host_ip !== '127.0.0.1') ctx_ignored.push(`${at}.host_ip`);
      if (entry.mode !== undefined && entry.mode !== 'ingress') ctx_ignored.push(`${at}.mode`);
      for (const key of ['app_protocol', 'name']) if (entry[key] !== undefined) ctx_ignored.push(`${at}.${key}`);
      const target = portNumber(entry.target);
      const published = entry.published === undefined || entry.published === null || entry.published === '' ? null : portNumber(entry.published);
      const protocol = entry.protocol ?? 'tcp';
      if (target === null) problems.add(`${at}.target`, 'expected a port number 1-65535');
      else if (entry.published !== undefined && entry.published !== null && entry.published !== '' && published === null) problems.add(`${at}.published`, 'expected one port number 1-65535 (ranges are not supported)');
      else if (protocol !== 'tcp' && protocol !== 'udp') problems.add(`${at}.protocol`, 'expected tcp or udp');
      else out.push({ target, published, protocol });
      return;
    }
    const s = text(entry);
    if (s === null) {
      problems.add(at, PORT_HELP);
      return;
    }
    const [spec, proto = 'tcp'] = s.split('/');
    const parts = spec!.split(':');
    const target = portNumber(parts[parts.length - 1]);
    const publishedText = parts.length >= 2 ? parts[parts.length - 2]! : '';
    const published = publishedText === '' ? null : portNumber(publishedText);
    if (target === null || (publishedText !== '' && published === null) || (proto !== 'tcp' && proto !== 'udp')) problems.add(at, PORT_HELP + ' (ranges are not supported)');
    else out.push({ target, published, protocol: proto as 'tcp' | 'udp' });
  });
  return out;
}

function exposeOf(input: unknown, path: string, problems: Problems): number[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) {
    problems.add(path, 'expected a list');
    return [];
  }
  return input.flatMap((entry, i) => {
    const n = portNumber(text(entry)?.split('/')[0]);
    if (n === null) problems.add(`${path}.${i}`, 'expected a port number such as 3000 or "3000/tcp" (ranges are not supported)');
    return n === null ? [] : [n];
  });
}

const MOUNT_HELP = 'expected NAME:/path[:ro], ./relative:/path[:ro] or {type: volume|bind, source, target, read_only}';

/** `volumes` of a service: named volumes (datasets) and bind mounts. */
function mountsOf(input: unknown, path: string, ctx: ServiceContext, image: boolean): { volumes: VolumeMount[]; binds: BindMount[]; tmpfs: string[] } {
  const volumes: VolumeMount[] = [];
  const binds: BindMount[] = [];
  const tmpfs: string[] = [];
  if (input === undefined || input === null) return { volumes, binds, tmpfs };
  if (!Array.isArray(input)) {
    ctx.problems.add(path, 'expected a list');
    return { volumes, binds, tmpfs };
  }
  input.forEach((entry, i) => {
    const at = `${path}.${i}`;
    let type: string;
    let source: string;
    let target: string;
    let readOnly: boolean;
    if (typeof entry === 'string') {
      const parts = entry.split(':');
      if (parts.length < 2 || parts.length > 3 || parts[0] === '' || parts[1] === '') return ctx.problems.add(at, MOUNT_HELP);
      [source, target] = [parts[0]!, parts[1]!];
      readOnly = (parts[2] ?? '').split(',').includes('ro');
      type = /^[./~]/.test(source) ? 'bind' : 'volume';
    } else if (isMap(entry)) {
      type = typeof entry.type === 'string' ? entry.type : 'volume';
      if (typeof entry.target !== 'string' || entry.target === '') return ctx.problems.add(`${at}.target`, 'required: the path the volume is mounted at');
      if (type !== 'tmpfs' && (typeof entry.source !== 'string' || entry.source === '')) return ctx.problems.add(`${at}.source`, `required for type ${type}: ${type === 'bind' ? 'a path beside the Compose file' : 'a volume declared under top-level volumes'}`);
      source = String(entry.source ?? '');
      target = entry.target;
      readOnly = entry.read_only === true;
      // Options without effect here; the loader's own defaults (`volume: {}`, `bind: {create_host_path: true}`) are not the user's.
      if (isMap(entry.volume) && Object.keys(entry.volume).length > 0) ctx.ignored.push(`${at}.volume`);
      if (isMap(entry.bind) && Object.keys(entry.bind).some((k) => k !== 'create_host_path')) ctx.ignored.push(`${at}.bind`);
      if (entry.consistency !== undefined) ctx.ignored.push(`${at}.consistency`);
    } else return ctx.problems.add(at, MOUNT_HELP);
    if (type === 'volume') {
      if (!ctx.volumes.includes(source)) ctx.problems.add(at, `volume "${source}" is not declared under top-level volumes`);
      else volumes.push({ source, target, read_only: readOnly });
    } else if (type === 'bind') {
      if (!image) return ctx.problems.add(at, 'bind mounts are for image services; a process service reads files from its working_dir and keeps data in a named volume (a dataset)');
      const tree = ctx.packed[source];
      if (tree) {
        const key = `bind:${source}`;
        ctx.files[key] = tree;
        binds.push({ source: key, target, read_only: readOnly });
      } else if (source.startsWith('/')) {
        // A host path the CLI did not pack: the agent mounts it only where its config allows the path.
        binds.push({ source, target, read_only: readOnly });
      } else ctx.problems.add(`${at}.source`, `${source} must be sent with the Compose file: deploy with the CLI (denv deploy -f), which packs files beside the Compose file`);
    } else if (type === 'tmpfs') {
      if (!image) return ctx.problems.add(`${at}.type`, 'tmpfs mounts are for image services; a process service writes to its working_dir or a dataset');
      tmpfs.push(target);
    } else ctx.problems.add(`${at}.type`, `not supported by denv: "${type}" mounts (use a named volume, a tmpfs, or a bind mount of a file beside the Compose file)`);
  });
  return { volumes, binds, tmpfs };
}

function dependsOf(input: unknown, path: string, ctx: ServiceContext, self: string): Record<string, Dependency> {
  const out: Record<string, Dependency> = {};
  if (input === undefined || input === null) return out;
  const add = (name: string, condition: unknown, required: unknown, at: string) => {
    if (name === self) ctx.problems.add(at, 'a service cannot depend on itself');
    else if (!ctx.services.includes(name)) ctx.problems.add(at, `no service named "${name}"`);
    else if (condition !== undefined && !DEPENDS_CONDITIONS.includes(condition as DependsCondition)) ctx.problems.add(`${at}.condition`, `expected one of ${DEPENDS_CONDITIONS.join(', ')}`);
    else out[name] = { condition: (condition as DependsCondition | undefined) ?? 'service_started', required: required !== false };
  };
  if (Array.isArray(input)) input.forEach((name, i) => add(String(name), undefined, true, `${path}.${i}`));
  else if (isMap(input)) {
    for (const [name, dep] of Object.entries(input)) {
      if (isMap(dep)) {
        if (dep.restart === true) ctx.ignored.push(`${path}.${name}.restart`); // false is the loader's default
        add(name, dep.condition, dep.required, `${path}.${name}`);
      } else add(name, undefined, true, `${path}.${name}`);
    }
  } else ctx.problems.add(path, 'expected a list of service names or a mapping');
  return out;
}

function grantsOf(kind: 'secrets' | 'configs', input: unknown, path: string, ctx: ServiceContext): FileGrant[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) {
    ctx.problems.add(path, 'expected a list');
    return [];
  }
  const declared = kind === 'secrets' ? ctx.secrets : ctx.configs;
  return input.flatMap((entry, i): FileGrant[] => {
    const at = `${path}.${i}`;
    const source = typeof entry === 'string' ? entry : isMap(entry) && typeof entry.source === 'string' ? entry.source : null;
    if (source === null) return (ctx.problems.add(at, 'expected a name or {source, target?, mode?}'), []);
    if (!declared.includes(source)) return (ctx.problems.add(at, `"${source}" is not declared under top-level ${kind}`), []);
    const target = isMap(entry) && typeof entry.target === 'string' ? entry.target : kind === 'secrets' ? `/run/secrets/${source}` : `/${source}`;
    const rawMode = isMap(entry) ? entry.mode : undefined;
    const mode = typeof rawMode === 'number' ? rawMode : typeof rawMode === 'string' && /^0?[0-7]{3}$/.test(rawMode) ? parseInt(rawMode, 8) : null;
    // Permission bits only: a setuid file made by the agent would be a way to root.
    if (rawMode !== undefined && (mode === null || mode < 0 || mode > 0o777)) return (ctx.problems.add(`${at}.mode`, 'expected a file mode such as 0400 (permission bits only, no setuid, setgid or sticky bit)'), []);
    if (isMap(entry)) for (const key of ['uid', 'gid']) if (entry[key] !== undefined) ctx.ignored.push(`${at}.${key}`);
    return [{ source, target, mode }];
  });
}

/** The image a service with only `build` runs: built on the host in a source deploy, tagged `<this>:<build key>`. */
export function builtImageName(service: string): string {
  return `denv-build/${service.toLowerCase()}`;
}

/** Whether the service can run only once built from a checkout: `build` and no image of its own. */
export function needsSourceBuild(service: string, s: Pick<ServiceSpec, 'image' | 'build'>): boolean {
  return !!s.build && s.image === builtImageName(service);
}

function buildOf(input: unknown, path: string, problems: Problems): BuildSpec | null {
  if (input === undefined || input === null) return null;
  if (typeof input === 'string') return { context: input, dockerfile: null, args: {}, target: null };
  if (!isMap(input)) return (problems.add(path, 'expected a context path or {context, dockerfile, args, target}'), null);
  const args: Record<string, string> = {};
  if (Array.isArray(input.args)) {
    for (const a of input.args) {
      const s = String(a);
      const eq = s.indexOf('=');
      if (eq > 0) args[s.slice(0, eq)] = s.slice(eq + 1);
    }
  } else if (isMap(input.args)) for (const [k, v] of Object.entries(input.args)) args[k] = v === null ? '' : String(v);
  return { context: typeof input.context === 'string' ? input.context : '.', dockerfile: typeof input.dockerfile === 'string' ? input.dockerfile : null, args, target: typeof input.target === 'string' ? input.target : null };
}

function limitsOf(input: Record<string, unknown>, path: string, problems: Problems, ignored: string[]): ResourceLimits {
  const deploy = isMap(input.deploy) ? input.deploy : {};
  const resources = isMap(deploy.resources) ? deploy.resources : {};
  const limits = isMap(resources.limits) ? resources.limits : {};
  const memIn = limits.memory ?? input.mem_limit;
  const cpusIn = limits.cpus ?? input.cpus;
  const pidsIn = limits.pids ?? input.pids_limit;
  const memory = memIn === undefined ? null : parseBytes(memIn);
  if (memIn !== undefined && (memory === null || memory < 6 * 1024 * 1024)) problems.add(limits.memory !== undefined ? `${path}.deploy.resources.limits.memory` : `${path}.mem_limit`, 'expected a size of at least 6m, such as 512m or 1g');
  const cpus = cpusIn === undefined ? null : Number(cpusIn);
  if (cpus !== null && !(cpus > 0 && cpus <= 1024)) problems.add(limits.cpus !== undefined ? `${path}.deploy.resources.limits.cpus` : `${path}.cpus`, 'expected a number of CPUs such as 0.5 or 2');
  const pids = pidsIn === undefined ? null : Number(pidsIn);
  if (pids !== null && !(Number.isInteger(pids) && pids > 0)) problems.add(`${path}.pids_limit`, 'expected a whole number of processes > 0');
  // Reservations are scheduling hints with no effect on one host.
  if (isMap(resources.reservations)) ignored.push(`${path}.deploy.resources.reservations`);
  return { memory_bytes: memory, cpus: cpus !== null && cpus > 0 ? cpus : null, pids: pids !== null && pids > 0 ? pids : null };
}

function restartOf(input: Record<string, unknown>, path: string, problems: Problems, ignored: string[]): RestartPolicy | null {
  const deploy = isMap(input.deploy) ? input.deploy : {};
  const policy = isMap(deploy.restart_policy) ? deploy.restart_policy : null;
  if (policy) {
    for (const key of ['delay', 'max_attempts', 'window']) if (policy[key] !== undefined) ignored.push(`${path}.deploy.restart_policy.${key}`);
    const map: Record<string, RestartPolicy> = { none: 'no', 'on-failure': 'on-failure', any: 'always' };
    const r = map[String(policy.condition ?? 'any')];
    if (!r) problems.add(`${path}.deploy.restart_policy.condition`, 'expected none, on-failure or any');
    return r ?? null;
  }
  if (input.restart === undefined) return null;
  const r = String(input.restart).replace(/:\d+$/, '');
  if (r !== String(input.restart)) ignored.push(`${path}.restart`); // on-failure:5 — the count is not enforced
  if (!RESTART_POLICIES.includes(r as RestartPolicy)) problems.add(`${path}.restart`, `expected one of ${RESTART_POLICIES.join(', ')}`);
  return RESTART_POLICIES.includes(r as RestartPolicy) ? (r as RestartPolicy) : null;
}

const SIGNAL = /^(SIG)?(TERM|INT|QUIT|HUP|KILL|USR1|USR2|WINCH|STOP)$/;

export function normalizeService(name: string, input: Record<string, unknown>, ctx: ServiceContext): ServiceSpec | null {
  const path = `services.${name}`;
  const p = ctx.problems;
  const given = typeof input.image === 'string' && input.image !== '' ? input.image : null;
  if (input.image !== undefined && given === null) p.add(`${path}.image`, 'expected an image reference');
  const command = argvOf(input.command, `${path}.command`, p);
  const build = buildOf(input.build, `${path}.build`, p);
  // A service with only `build` is an image service whose image a source deploy builds on the
  // host (agent envs/image-build.ts); a Compose deploy refuses it (needsSourceBuild).
  const image = given ?? (build && !command ? builtImageName(name) : null);
  if (!image && !command) p.add(path, 'needs an image or a command (no image and no command to run)');
  const x = normalizeServiceXDenv(input['x-denv'], path, p);
  if (x.build && image) p.add(`${path}.x-denv.build`, 'x-denv.build is for process services (run in the checkout before they start); an image service is built from build:');
  const published = portsOf(input.ports, `${path}.ports`, p, ctx.ignored);
  const { volumes, binds, tmpfs } = mountsOf(input.volumes, `${path}.volumes`, ctx, image !== null);
  const tmpfsField = input.tmpfs === undefined || input.tmpfs === null ? [] : Array.isArray(input.tmpfs) ? input.tmpfs.map(String) : [String(input.tmpfs)];
  if (tmpfsField.length > 0 && image === null) p.add(`${path}.tmpfs`, 'tmpfs mounts are for image services; a process service writes to its working_dir or a dataset');
  for (const t of tmpfsField) tmpfs.push(t.split(':')[0]!);
  if (input.read_only === true && image === null) p.add(`${path}.read_only`, 'a process service has no root filesystem of its own; read_only is for image services');
  const user = input.user === undefined || input.user === null ? null : text(input.user);
  if (user !== null && !/^[a-z_][a-z0-9_.-]*(:[a-z_][a-z0-9_.-]*)?$|^\d+(:\d+)?$|^[a-z_][a-z0-9_.-]*:\d+$|^\d+:[a-z_][a-z0-9_.-]*$/i.test(user)) p.add(`${path}.user`, 'expected user, uid, user:group or uid:gid');
  const deploy = isMap(input.deploy) ? input.deploy : {};
  if (deploy.replicas !== undefined && deploy.replicas !== 1) p.add(`${path}.deploy.replicas`, 'not supported by denv: one copy per service per env (fork the env for another copy)');
  if (deploy.mode !== undefined && deploy.mode !== 'replicated') p.add(`${path}.deploy.mode`, 'not supported by denv: only replicated (one copy)');
  const update = isMap(deploy.update_config) ? deploy.update_config : {};
  for (const key of Object.keys(update)) if (key !== 'order') ctx.ignored.push(`${path}.deploy.update_config.${key}`);
  if (update.order !== undefined && update.order !== 'start-first' && update.order !== 'stop-first') p.add(`${path}.deploy.update_config.order`, 'expected start-first or stop-first');
  const stopSignal = input.stop_signal === undefined ? null : String(input.stop_signal).toUpperCase();
  if (stopSignal !== null && !SIGNAL.test(stopSignal)) p.add(`${path}.stop_signal`, 'expected a signal name such as SIGTERM or SIGINT');
  const grace = input.stop_grace_period === undefined ? null : parseDuration(input.stop_grace_period as string);
  if (input.stop_grace_period !== undefined && grace === null) p.add(`${path}.stop_grace_period`, 'expected a duration such as 10s or 1m30s');
  const networks = Array.isArray(input.networks) ? input.networks.map(String) : isMap(input.networks) ? Object.keys(input.networks) : [];
  for (const n of networks) if (n !== 'default' && !ctx.networks.includes(n)) p.add(`${path}.networks`, `network "${n}" is not declared under top-level networks`);
  if (isMap(input.networks)) for (const [n, def] of Object.entries(input.networks)) if (isMap(def)) for (const key of Object.keys(def)) if (key !== 'aliases') ctx.ignored.push(`${path}.networks.${n}.${key}`);
  const limits = limitsOf(input, path, p, ctx.ignored);
  const workingDir = input.working_dir === undefined || input.working_dir === null ? null : text(input.working_dir);

  return {
    image,
    command,
    entrypoint: argvOf(input.entrypoint, `${path}.entrypoint`, p),
    environment: environmentOf(input.environment, `${path}.environment`, image === null, p),
    working_dir: workingDir,
    ports: [...new Set([...published.map((q) => q.target), ...exposeOf(input.expose, `${path}.expose`, p)])],
    volumes,
    health: healthOf(input, path, image !== null, x.health, p, ctx.ignored),
    user,
    depends_on: dependsOf(input.depends_on, `${path}.depends_on`, ctx, name),
    restart: restartOf(input, path, p, ctx.ignored),
    update_order: x.update_order ?? ((update.order as ServiceSpec['update_order'] | undefined) ?? null),
    stop_signal: stopSignal === null ? null : stopSignal.startsWith('SIG') ? stopSignal : `SIG${stopSignal}`,
    stop_grace_ms: grace,
    limits,
    published: published.filter((q) => q.published !== null),
    secrets: grantsOf('secrets', input.secrets, `${path}.secrets`, ctx),
    configs: grantsOf('configs', input.configs, `${path}.configs`, ctx),
    binds,
    build,
    networks,
    edge: x.edge,
    ...(x.build ? { build_command: x.build } : {}),
    ...(input.read_only === true && image !== null ? { read_only: true } : {}),
    ...(tmpfs.length > 0 && image !== null ? { tmpfs } : {}),
  };
}
