/**
 * Compose `build:` of an image service in a source deploy (issue 13): `docker build` in the
 * commit's checkout, and the built image is what the service's pipeline runs (by its image id; the
 * pull stage says "built on this host").
 *
 *   tag   denv-build/<service>:<key>                 (builtImageName, contracts/spec-service.ts)
 *   log   <workloads>/<env>/build/<service>/<key>.image.log   what the build printed (its last 256 KiB)
 *
 * `key` hashes what decides the result: the commit, the context and Dockerfile paths, the build
 * args and the target. An image already tagged with the key is reused (`cached`): the same commit
 * and inputs give the same image, in any env of the host (a fork, a preview). The context arrives
 * as a repository path (the control plane loads a source deploy's Compose file with its own
 * directory in the repository as the project dir, `/` being the root: api/source-spec.ts), the
 * Dockerfile relative to the context as Compose has it; both must be inside the checkout once
 * symlinks are followed. A URL context (git, https) is refused. Run without a shell (lib/exec),
 * bounded and logged as `x-denv.build` is (source-build.ts runBuild); a failure is a BuildFailed ending with the build's last lines.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { builtImageName } from '../../contracts/spec-service.js';
import type { BuildSpec } from '../../contracts/spec-types.js';
import { KeyedMutex } from '../../lib/mutex.js';
import { dockerBuildArgv } from '../runtimes/docker/docker-argv.js';
import type { DockerRuntime } from '../runtimes/docker/docker-runtime.js';
import type { BuiltImage } from '../pipeline/stage.js';
import { runBuild } from './source-build.js';

const builds = new KeyedMutex();

/** The build's context dir and Dockerfile, both inside `checkout` (realpaths), or AGENT_ERROR saying which leaves it. */
export function buildPaths(checkout: string, build: BuildSpec): { readonly context: string; readonly dockerfile: string } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(build.context) || build.context.startsWith('git@')) {
    throw new DenvError('AGENT_ERROR', `build.context ${build.context}: a source deploy builds from its own checkout; a URL context is not fetched`);
  }
  const root = realpathSync(checkout);
  const inside = (p: string) => p === root || p.startsWith(`${root}/`);
  // `/app` is the repository's app/ (a relative context, from an older control plane, is taken from the root).
  const contextPath = path.join(root, path.posix.resolve('/', build.context));
  if (!existsSync(contextPath) || !statSync(contextPath).isDirectory()) throw new DenvError('AGENT_ERROR', `build.context ${build.context} is not a directory of the commit's checkout`);
  const context = realpathSync(contextPath);
  if (!inside(context)) throw new DenvError('AGENT_ERROR', `build.context ${build.context} leaves the checkout`);
  const file = build.dockerfile ?? 'Dockerfile';
  const dockerfilePath = file.startsWith('/') ? path.join(root, path.posix.resolve(file)) : path.resolve(context, file);
  if (!existsSync(dockerfilePath)) throw new DenvError('AGENT_ERROR', `build: no ${build.dockerfile ?? 'Dockerfile'} in ${build.context} at this commit`);
  const dockerfile = realpathSync(dockerfilePath);
  if (!inside(dockerfile)) throw new DenvError('AGENT_ERROR', `build.dockerfile ${build.dockerfile} leaves the checkout`);
  return { context, dockerfile };
}

/** What decides a build's result (pure): paths relative to the checkout, so two checkouts of one commit agree. */
export function imageBuildKey(commit: string, relative: { readonly context: string; readonly dockerfile: string }, build: Pick<BuildSpec, 'args' | 'target'>): string {
  const args = Object.keys(build.args).sort().map((k) => [k, build.args[k]]);
  return createHash('sha256').update(JSON.stringify([commit, relative.context, relative.dockerfile, args, build.target])).digest('hex').slice(0, 24);
}

/** Build service `service`'s image from `checkout` (commit `commit`), or reuse the one this exact build made. */
export async function ensureImageBuild(o: {
  readonly docker: DockerRuntime;
  readonly workloads: string;
  readonly env: string;
  readonly service: string;
  readonly build: BuildSpec;
  readonly checkout: string;
  readonly commit: string;
  /** Lines of docker's output as they come (sent live to the control plane). */
  readonly output?: (lines: readonly string[]) => void;
}): Promise<BuiltImage> {
  const paths = buildPaths(o.checkout, o.build);
  const root = realpathSync(o.checkout);
  const key = imageBuildKey(o.commit, { context: path.relative(root, paths.context), dockerfile: path.relative(root, paths.dockerfile) }, o.build);
  const tag = `${builtImageName(o.service)}:${key}`;
  return builds.run(tag, async () => {
    const known = await o.docker.image(tag);
    if (known) return { tag, image_id: known.id, commit: o.commit, key, cached: true, took_ms: 0 };
    const started = Date.now();
    const argv = dockerBuildArgv({ context: paths.context, dockerfile: paths.dockerfile, tag, target: o.build.target, args: o.build.args, labels: { 'dev.denv.build.commit': o.commit, 'dev.denv.build.key': key } });
    const logDir = path.join(o.workloads, o.env, 'build', o.service);
    await mkdir(logDir, { recursive: true, mode: 0o711 });
    await runBuild({ argv, command: argv, what: 'docker build', logFile: path.join(logDir, `${key}.image.log`), ...(o.output ? { output: o.output } : {}) });
    const built = await o.docker.image(tag);
    if (!built) throw new DenvError('AGENT_ERROR', `docker build exited 0 but the engine holds no image ${tag}`);
    return { tag, image_id: built.id, commit: o.commit, key, cached: false, took_ms: Date.now() - started };
  });
}
