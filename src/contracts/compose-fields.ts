/**
 * What denv does with each field of a Compose service and of the Compose file (issue 9: nothing
 * is silently ignored). Every field the Compose specification defines is in one of three sets:
 *
 *   honoured  — denv acts on it (spec.ts maps it into the Spec);
 *   ignored   — purely cosmetic or without effect on one host; accepted and listed in the
 *               `resolve` evidence and by the CLI (`Spec.ignored`);
 *   refused   — accepted by Compose but not by denv; the reason is the error message.
 *
 * A field the table does not know is refused ("not supported by denv"), so a new Compose field
 * is never ignored by accident. Data only: the table is the documentation (docs/compose.md).
 */

export type FieldPolicy = { readonly kind: 'honoured' } | { readonly kind: 'ignored' } | { readonly kind: 'refused'; readonly reason: string };

const honoured: FieldPolicy = { kind: 'honoured' };
const ignored: FieldPolicy = { kind: 'ignored' };
const refused = (reason: string): FieldPolicy => ({ kind: 'refused', reason });

const NO_HOST_ACCESS = 'a service gets no privileges on its host (docs/security.md)';
const ONE_NETWORK = 'each env has one network of its own; services reach each other by name';

export const SERVICE_FIELDS: Readonly<Record<string, FieldPolicy>> = {
  image: honoured,
  command: honoured,
  entrypoint: honoured,
  environment: honoured,
  env_file: honoured, // merged into environment by the loader
  working_dir: honoured,
  ports: honoured,
  expose: honoured,
  volumes: honoured,
  healthcheck: honoured,
  depends_on: honoured,
  restart: honoured,
  user: honoured,
  deploy: honoured, // resources.limits, update_config.order, restart_policy; see DEPLOY_FIELDS
  mem_limit: honoured,
  cpus: honoured,
  pids_limit: honoured,
  stop_signal: honoured,
  stop_grace_period: honoured,
  secrets: honoured,
  configs: honoured,
  build: honoured, // parsed and validated; a service with only `build` needs a source deploy
  networks: honoured,
  links: honoured, // every service of an env already resolves by name
  init: honoured, // containers always run with an init; processes are supervised by the agent
  profiles: honoured, // applied by the loader
  extends: honoured, // applied by the loader
  'x-denv': honoured,

  container_name: ignored,
  hostname: ignored,
  domainname: ignored,
  labels: ignored,
  label_file: ignored,
  logging: ignored,
  stdin_open: ignored,
  tty: ignored,
  annotations: ignored,
  attach: ignored,
  mac_address: ignored,
  pull_policy: ignored, // denv pulls by digest
  platform: ignored,
  develop: ignored,
  mem_reservation: ignored,
  oom_score_adj: ignored,

  privileged: refused(NO_HOST_ACCESS),
  cap_add: refused(NO_HOST_ACCESS),
  devices: refused(NO_HOST_ACCESS),
  device_cgroup_rules: refused(NO_HOST_ACCESS),
  gpus: refused('GPUs are not scheduled by denv yet'),
  pid: refused(NO_HOST_ACCESS),
  ipc: refused(NO_HOST_ACCESS),
  userns_mode: refused(NO_HOST_ACCESS),
  uts: refused(NO_HOST_ACCESS),
  cgroup: refused(NO_HOST_ACCESS),
  cgroup_parent: refused(NO_HOST_ACCESS),
  security_opt: refused(NO_HOST_ACCESS),
  sysctls: refused(NO_HOST_ACCESS),
  network_mode: refused(ONE_NETWORK),
  external_links: refused(ONE_NETWORK),
  extra_hosts: refused(`${ONE_NETWORK}; extra host entries are not supported`),
  dns: refused(`${ONE_NETWORK}; custom resolvers are not supported`),
  dns_opt: refused(`${ONE_NETWORK}; custom resolvers are not supported`),
  dns_search: refused(`${ONE_NETWORK}; custom resolvers are not supported`),
  volumes_from: refused('share data through a named volume (a dataset) instead'),
  tmpfs: honoured, // image services
  read_only: honoured, // image services
  shm_size: refused('not supported yet'),
  ulimits: refused('not supported yet; use deploy.resources.limits'),
  group_add: refused('supplementary groups are not supported; set user:'),
  runtime: refused('not supported'),
  isolation: refused('not supported'),
  scale: refused('one copy per service per env; fork the env for another copy'),
  cap_drop: refused('not supported yet'),
  cpu_count: refused('use cpus'),
  cpu_percent: refused('use cpus'),
  cpu_shares: refused('use cpus'),
  cpu_period: refused('use cpus'),
  cpu_quota: refused('use cpus'),
  cpu_rt_runtime: refused('use cpus'),
  cpu_rt_period: refused('use cpus'),
  cpuset: refused('use cpus'),
  blkio_config: refused('not supported'),
  memswap_limit: refused('use mem_limit'),
  mem_swappiness: refused('use mem_limit'),
  oom_kill_disable: refused('not supported'),
  storage_opt: refused('not supported'),
  credential_spec: refused('not supported'),
  post_start: refused('lifecycle hooks are not supported yet'),
  pre_stop: refused('lifecycle hooks are not supported yet'),
  use_api_socket: refused(NO_HOST_ACCESS),
  provider: refused('not supported'),
  models: refused('not supported'),
};

/** Under `deploy:` (Compose Deploy Specification). */
export const DEPLOY_FIELDS: Readonly<Record<string, FieldPolicy>> = {
  resources: honoured,
  update_config: honoured,
  restart_policy: honoured,
  replicas: honoured, // 1 only (checked in spec.ts)
  mode: honoured, // replicated only
  labels: ignored,
  endpoint_mode: ignored,
  rollback_config: ignored, // denv's own rollback applies
  placement: refused('placement is decided by denv (x-denv.target, deploy target)'),
};

/** Top-level keys of the Compose file. */
export const TOP_LEVEL_FIELDS: Readonly<Record<string, FieldPolicy>> = {
  services: honoured,
  volumes: honoured,
  networks: honoured,
  secrets: honoured,
  configs: honoured,
  include: honoured, // applied by the loader
  'x-denv': honoured,
  version: ignored, // obsolete in the Compose specification
  name: ignored, // the project is named on the denv side
  models: refused('not supported'),
};
