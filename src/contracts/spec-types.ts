/**
 * denv's normalised app spec: what a Compose file (with `x-denv` extensions) means to denv, after
 * loading (compose/) and denv's own rules (spec.ts). Every other module reads these types; the
 * agent receives `ServiceSpec`s in its commands and versions store `Spec` as JSON.
 */

/** How a service's health is judged (DESIGN "Contract details"). */
export type HealthSpec =
  | { readonly kind: 'http'; readonly path: string; readonly port: number | null; readonly timeout_ms: number }
  | { readonly kind: 'command'; readonly test: readonly string[]; readonly interval_ms: number; readonly timeout_ms: number; readonly retries: number; readonly start_period_ms: number }
  | { readonly kind: 'alive'; readonly for_ms: number };

/** A named volume (dataset) mounted by a service. */
export interface VolumeMount {
  readonly source: string;
  readonly target: string;
  readonly read_only: boolean;
}

/** Compose `depends_on` conditions (the Compose specification's three). */
export const DEPENDS_CONDITIONS = ['service_started', 'service_healthy', 'service_completed_successfully'] as const;
export type DependsCondition = (typeof DEPENDS_CONDITIONS)[number];

export interface Dependency {
  readonly condition: DependsCondition;
  /** false: start anyway when the dependency is missing or fails (Compose `required: false`). */
  readonly required: boolean;
}

/** Compose `restart` policies. Process services: `no` never restarts; the others restart after a crash once healthy. */
export const RESTART_POLICIES = ['no', 'always', 'on-failure', 'unless-stopped'] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];

/** `deploy.update_config.order`: start the new copy beside the old one, or stop the old one first. */
export const UPDATE_ORDERS = ['start-first', 'stop-first'] as const;
export type UpdateOrder = (typeof UPDATE_ORDERS)[number];

/** Limits from `deploy.resources.limits`, `mem_limit`, `cpus`, `pids_limit` (null: none). */
export interface ResourceLimits {
  readonly memory_bytes: number | null;
  /** Fractional CPUs (0.5 = half a core). */
  readonly cpus: number | null;
  readonly pids: number | null;
}

/** A published port: `target` is the port the service listens on (in its container, or PORT for a process);
 *  `published` is the host port asked for (null: the agent picks one and reports it in endpoints). */
export interface PortSpec {
  readonly target: number;
  readonly published: number | null;
  readonly protocol: 'tcp' | 'udp';
}

/** A secret or config a service reads from a file (Compose `secrets`/`configs` from `file:` or `content:`),
 *  carried in the version so the host has it. `content_b64` never appears in events, logs or evidence. */
export interface FileGrant {
  /** The top-level secret/config name. */
  readonly source: string;
  /** Compose target: for image services the path inside the container (default /run/secrets/<name>,
   *  /<name> for configs); process services get the host path in `DENV_SECRET_<NAME>` / `DENV_CONFIG_<NAME>`. */
  readonly target: string;
  readonly mode: number | null;
}

/** A bind mount of a file or directory beside the Compose file, packed into the version by the CLI. */
export interface BindMount {
  /** Key into `Spec.files` (the packed tree). */
  readonly source: string;
  readonly target: string;
  readonly read_only: boolean;
}

/** Compose `build` (parsed and validated; builds belong to source deploys). */
export interface BuildSpec {
  readonly context: string;
  readonly dockerfile: string | null;
  readonly args: Readonly<Record<string, string>>;
  readonly target: string | null;
}

/** How the proxy serves a service's hostnames: a public certificate (ACME), the proxy's own CA, or plain HTTP. */
export const EDGE_TLS_MODES = ['auto', 'internal', 'off'] as const;
export type EdgeTls = (typeof EDGE_TLS_MODES)[number];

/** Per service `x-denv.edge` (DESIGN "Edge"): where the proxy and DNS put the service. */
export interface ServiceEdge {
  /** Hostnames the service answers on in production, normalized (lower case, no trailing dot); may be empty
   *  (then only non-production envs get names, `<env>.<project>.<base domain>` from the team's settings). */
  readonly hostnames: readonly string[];
  /** Default 'auto'. */
  readonly tls: EdgeTls;
  /** The port inside the service to route to when it listens on several (a Compose `ports` target); null: the service's own PORT. */
  readonly port: number | null;
  /** How long the old version keeps serving in-flight requests after the route moved (default 10 s). */
  readonly drain_ms: number;
}

export interface ServiceSpec {
  readonly image: string | null;
  /** argv; for a process service the program and its arguments, never a shell string. */
  readonly command: readonly string[] | null;
  readonly entrypoint: readonly string[] | null;
  /** May hold `${DENV_…}` references (siblings' HOST/PORT): the host fills them in when the service starts. */
  readonly environment: Readonly<Record<string, string>>;
  readonly working_dir: string | null;
  /** Ports the service listens on (container ports for image services; from `ports` and `expose`). */
  readonly ports: readonly number[];
  readonly volumes: readonly VolumeMount[];
  readonly health: HealthSpec;
  // Fields below were added with full Compose loading; versions stored before lack them (read with `?? default`).
  /** `user:` as written (`postgres`, `999`, `999:999`, `postgres:postgres`); null: the agent's per-env user. */
  readonly user?: string | null;
  readonly depends_on?: Readonly<Record<string, Dependency>>;
  readonly restart?: RestartPolicy | null;
  /** null: the default (stop-first when the service mounts a dataset writable, else start-first). */
  readonly update_order?: UpdateOrder | null;
  readonly stop_signal?: string | null;
  readonly stop_grace_ms?: number | null;
  readonly limits?: ResourceLimits;
  /** Published ports with the host port asked for, when any. */
  readonly published?: readonly PortSpec[];
  readonly secrets?: readonly FileGrant[];
  readonly configs?: readonly FileGrant[];
  readonly binds?: readonly BindMount[];
  readonly build?: BuildSpec | null;
  /** `x-denv.build` of a process service: run in the source deploy's checkout before it starts (agent envs/source-build.ts). */
  readonly build_command?: readonly string[] | null;
  /** Networks the service joins (names of the Compose file's networks; all map to the env's one network). */
  readonly networks?: readonly string[];
  /** Image services: a read-only root filesystem (Compose `read_only`). */
  readonly read_only?: boolean;
  /** Image services: paths mounted as tmpfs (Compose `tmpfs`, and `volumes` of type tmpfs). */
  readonly tmpfs?: readonly string[];
  /** null: the service has no `x-denv.edge` (nor the top-level shorthand). Versions stored before it lack
   *  the field, and carry the top-level `edge: {hostnames}` the Spec had then. */
  readonly edge?: ServiceEdge | null;
}

/** A packed file or directory tree (bind mount source, secret or config): paths relative to its root. */
export interface PackedTree {
  readonly kind: 'file' | 'dir';
  readonly entries: readonly { readonly path: string; readonly mode: number; readonly content_b64: string }[];
}

export interface Spec {
  readonly services: Readonly<Record<string, ServiceSpec>>;
  /** Dataset names (Compose named volumes). */
  readonly volumes: readonly string[];
  readonly warm: readonly string[] | null;
  readonly target: 'host' | 'kubernetes' | 'aws_ecs';
  readonly approval: 'auto' | 'required' | null;
  readonly agent: { readonly service: string; readonly paths: readonly string[] } | null;
  readonly verifier: { readonly command: readonly string[]; readonly timeout_ms: number } | null;
  /** Fields accepted but without effect (cosmetic: container_name, hostname, labels …), by path; shown in `resolve` evidence and by the CLI. */
  readonly ignored?: readonly string[];
  /** Secret, config and bind-mount contents by name (`secret:<name>`, `config:<name>`, `bind:<n>`). */
  readonly files?: Readonly<Record<string, PackedTree>>;
  /** Deployed from a linked repository (set by the control plane, never read from Compose): process
   *  services without an absolute working_dir run in a checkout of `commit` on the host. */
  readonly source?: SourceRef;
}

/** The commit a source deploy runs, and how it was named. */
export interface SourceRef {
  /** The repository's address (no credentials: they stay with the project). */
  readonly repo: string;
  /** What the deploy asked for: a branch, a tag or a commit id. */
  readonly ref: string;
  /** The full commit id `ref` resolved to when the deploy was requested. */
  readonly commit: string;
  /** The branch, when `ref` named one. */
  readonly branch: string | null;
  /** Where the Compose file was read in the repository. */
  readonly compose_path: string;
}
