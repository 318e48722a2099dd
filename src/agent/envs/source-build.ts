/**
 * `x-denv.build` of a process service in a source deploy (issue 13): its argv (`["npm", "ci"]`)
 * runs in the service's own copy of the commit's checkout, as the service's user, before it starts:
 *
 *   <workloads>/<env>/build/<service>/<key>/        the built tree: the service's working dir
 *   <workloads>/<env>/build/<service>/<key>.log     what the build printed (its last 256 KiB)
 *
 * `key` hashes what decides the result: the commit, the argv, the user and the environment the
 * build sees. The same key again reuses the tree (`cached`); a build is made in a staging copy and
 * renamed into place only when it exited 0, so a failed or interrupted build is never reused.
 * Run without a shell (lib/exec), bounded by BUILD_TIMEOUT_MS; a failure is a BuildFailed ending
 * with the build's last lines. Builds of one service are serialised; other services build in turn
 * (the version's services are prepared one at a time).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { run } from '../../lib/exec.js';
import { outputLines } from '../commands/command-output.js';
import type { Identity } from '../identity/identity.js';
import { assertReachable, ownDir, ownTree } from '../identity/ownership.js';
import { usablePath } from '../identity/usable-path.js';
import { contextArgv } from '../runtimes/process/launch-argv.js';
import { FALLBACK_PATH } from '../runtimes/process/service-env.js';

export const BUILD_TIMEOUT_MS = 30 * 60_000;
const LOG_BYTES = 256 * 1024;
const TAIL_LINES = 20;

/** A build that ran and failed (not one that could not be set up): the deploy's `prepare` fails with it. */
export class BuildFailed extends DenvError {
  constructor(readonly command: readonly string[], message: string) {
    super('AGENT_ERROR', message);
  }
}

export interface BuildResult {
  readonly dir: string;
  readonly cached: boolean;
  readonly took_ms: number;
  readonly command: readonly string[];
}

/** The environment a build sees: PATH (what `identity` can search of the agent's) and HOME, plus the service's own environment (npm and the like read it). */
export function buildEnvironment(spec: Pick<ServiceSpec, 'environment'>, home: string, identity: Identity | null): Record<string, string> {
  return { ...spec.environment, PATH: usablePath(process.env.PATH ?? '', identity) || FALLBACK_PATH, HOME: home, CI: 'true' };
}

/** What decides a build's result (pure). */
export function buildKey(commit: string, argv: readonly string[], identity: Identity | null, env: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(env).sort().map((k) => [k, env[k]]);
  return createHash('sha256').update(JSON.stringify([commit, argv, identity?.uid ?? 0, identity?.gid ?? 0, sorted])).digest('hex').slice(0, 24);
}

/** The last `n` lines of `text`. */
export function tailLines(text: string, n = TAIL_LINES): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/**
 * Run a build (`x-denv.build`, or `docker build`: image-build.ts) without a shell, bounded by
 * BUILD_TIMEOUT_MS, its output sent to `output` as it comes and its last LOG_BYTES written to
 * `logFile` (0600). A failure is a BuildFailed: `<what> <how it ended>:` and its last lines.
 */
export async function runBuild(o: {
  readonly argv: readonly string[];
  /** What BuildFailed names as the build's command (the user's argv, without the identity wrapper). */
  readonly command: readonly string[];
  readonly what: string;
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly output?: (lines: readonly string[]) => void;
}): Promise<void> {
  const live = o.output ? outputLines(o.output) : null;
  const out = await run(o.argv, { cwd: o.cwd, env: o.env, timeoutMs: BUILD_TIMEOUT_MS, maxOutputBytes: LOG_BYTES, ...(live ? { onOutput: live.write } : {}) }).finally(() => live?.end());
  const log = [out.stdout, out.stderr].filter((t) => t.trim() !== '').join('\n');
  await writeFile(o.logFile, log, { mode: 0o600 });
  if (out.exitCode !== 0) {
    const how = out.timedOut ? `timed out after ${BUILD_TIMEOUT_MS / 60_000} min` : out.signal ? `was killed by ${out.signal}` : `exited with code ${out.exitCode}`;
    throw new BuildFailed(o.command, `${o.what} ${how}:\n${tailLines(log) || '(no output)'}`);
  }
}

/**
 * Build service `service` of env `env` from `checkout` (commit `commit`): the built tree, reused
 * when this exact build already succeeded. `home` is the service's own dir (HOME for the build).
 */
export async function ensureBuild(o: {
  readonly workloads: string;
  readonly env: string;
  readonly service: string;
  readonly spec: ServiceSpec;
  readonly checkout: string;
  readonly commit: string;
  readonly identity: Identity | null;
  readonly home: string;
  /** Lines the build prints as they come (sent live to the control plane). */
  readonly output?: (lines: readonly string[]) => void;
}): Promise<BuildResult> {
  const argv = o.spec.build_command!;
  const env = buildEnvironment(o.spec, o.home, o.identity);
  const key = buildKey(o.commit, argv, o.identity, env);
  const root = path.join(o.workloads, o.env, 'build', o.service);
  const dir = path.join(root, key);
  if (existsSync(dir)) return { dir, cached: true, took_ms: 0, command: argv };
  const started = Date.now();
  await ownDir(path.dirname(root), null, 0o711);
  await ownDir(root, null, 0o711);
  const staging = `${dir}.staging`;
  await rm(staging, { recursive: true, force: true });
  await cp(o.checkout, staging, { recursive: true, preserveTimestamps: true });
  // The build writes its tree (node_modules …) as the service's user, who owns it from here on.
  if (o.identity) await ownTree(staging, o.identity);
  // Refused with the reason rather than a build that fails on EACCES somewhere inside npm.
  await assertReachable(path.join(staging, '.'), o.identity, 'the build directory');
  try {
    await runBuild({ argv: contextArgv(argv, o.identity), command: argv, what: `x-denv.build ${JSON.stringify(argv)}`, logFile: `${dir}.log`, cwd: staging, env, ...(o.output ? { output: o.output } : {}) });
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  await mkdir(root, { recursive: true });
  await rename(staging, dir);
  return { dir, cached: false, took_ms: Date.now() - started, command: argv };
}
