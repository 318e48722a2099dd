/**
 * Every docker and compose command the runtime runs, as argv (pure, tested on exact output —
 * STYLE 1, Kamal's commands/*). The executor (`lib/exec.ts`) runs them without a shell.
 */

/** `v1`: the Python `docker-compose` (Debian 12 ships 1.29); `v2`: the Go plugin or binary. */
export type ComposeFlavor = 'v1' | 'v2';

export interface ComposeCli {
  /** The program and the words before the compose arguments: `['docker', 'compose']` or `['docker-compose']`. */
  readonly argv: readonly string[];
  readonly flavor: ComposeFlavor;
  readonly version: string;
}

/** Seconds Compose waits after SIGTERM before SIGKILL when it stops a container (the default `stop_grace_period`). */
export const STOP_TIMEOUT_S = 10;

const compose = (cli: ComposeCli, project: string, file: string, ...rest: string[]): string[] => [...cli.argv, '--project-name', project, '--file', file, ...rest];

/** Create or recreate the project's containers as the file says, detached; remove containers of services no longer in it. */
export const composeUpArgv = (cli: ComposeCli, project: string, file: string): string[] => compose(cli, project, file, 'up', '--detach', '--remove-orphans');

/**
 * Stop and remove the project's containers. No `--timeout`: each container gets its own
 * `stop_grace_period` from the file (STOP_TIMEOUT_S unless the spec says otherwise). An external
 * network (the env's) is left alone.
 */
export const composeDownArgv = (cli: ComposeCli, project: string, file: string): string[] => compose(cli, project, file, 'down', '--remove-orphans');

/** Create a user-defined bridge network with labels (fails with "already exists" when it does). */
export const dockerNetworkCreateArgv = (name: string, labels: Readonly<Record<string, string>>): string[] => [
  'docker',
  'network',
  'create',
  '--driver',
  'bridge',
  ...Object.keys(labels)
    .sort()
    .flatMap((k) => ['--label', `${k}=${labels[k]}`]),
  name,
];

export const dockerNetworkRmArgv = (name: string): string[] => ['docker', 'network', 'rm', name];

export const composeVersionArgv = (cli: Pick<ComposeCli, 'argv'>): string[] => [...cli.argv, 'version', '--short'];

/** Pull one image by reference (`repo@sha256:…` for signed deploys). */
export const dockerPullArgv = (ref: string): string[] => ['docker', 'pull', '--quiet', ref];

/**
 * `docker build` of a Compose `build:` (image-build.ts decides the paths, inside the checkout):
 * every argument its own argv entry, build args as `KEY=value` (never through a shell), and the
 * context last after `--`, so no path is read as an option.
 */
export function dockerBuildArgv(o: { readonly context: string; readonly dockerfile: string; readonly tag: string; readonly target: string | null; readonly args: Readonly<Record<string, string>>; readonly labels: Readonly<Record<string, string>> }): string[] {
  return [
    'docker', 'build',
    '--file', o.dockerfile,
    '--tag', o.tag,
    ...(o.target !== null ? ['--target', o.target] : []),
    ...Object.entries(o.args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    ...Object.entries(o.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    '--', o.context,
  ];
}

export const dockerPauseArgv = (containers: readonly string[]): string[] => ['docker', 'pause', ...containers];
export const dockerUnpauseArgv = (containers: readonly string[]): string[] => ['docker', 'unpause', ...containers];

/** The last `lines` lines a container printed (stdout and stderr), with timestamps. */
export const dockerLogsArgv = (container: string, lines: number): string[] => ['docker', 'logs', '--timestamps', '--tail', String(lines), container];

/** Which flavor a `compose version --short` answer is (`1.29.2` → v1, `2.27.0` / `v2.27.0` → v2); null when unreadable. */
export function flavorOf(versionOutput: string): ComposeFlavor | null {
  const m = /^v?(\d+)\./.exec(versionOutput.trim());
  if (!m) return null;
  return Number(m[1]) >= 2 ? 'v2' : 'v1';
}
