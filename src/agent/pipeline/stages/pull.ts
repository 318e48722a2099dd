/**
 * pull (seed 004, stage 4): `docker pull repo@sha256:…`, then re-check that the image the engine
 * now holds was resolved from exactly the requested digest (its RepoDigests). An image already
 * present under that digest is not fetched again: a digest names its content. An image a source
 * deploy built on this host (envs/image-build.ts) is not pulled: the stage checks the engine still
 * holds it and reports the build. Hard gate: a failure changes nothing (no container is touched
 * before recreate).
 */
import { failed, ok, type Stage } from '../stage.js';

export const pull: Stage = {
  name: 'pull',
  onFailure: 'fail',
  async run({ host, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const target = state.target!;
    if (target.built) {
      const b = target.built;
      const evidence = { built: true, tag: b.tag, image_id: b.image_id.slice(0, 19), commit: b.commit, key: b.key, cached: b.cached, build_ms: b.took_ms };
      if (!(await docker.image(b.image_id))) return failed(`${b.tag}: the engine no longer holds the image built from ${b.commit.slice(0, 12)}`, evidence);
      return ok(b.cached ? 'built on this host: the same commit and build inputs as an earlier build (cached)' : `built on this host from ${b.commit.slice(0, 12)} in ${b.took_ms} ms`, evidence);
    }
    const wanted = target.digest ? `${target.repository}@${target.digest}` : null;
    const local = await docker.image(target.ref);
    const cached = local !== null && wanted !== null && local.repoDigests.includes(wanted);
    if (!cached) {
      const pulled = await docker.pull(target.ref);
      if (!pulled.ok) return failed(`${target.ref}: ${pulled.message}`, { ref: target.ref, cached: false });
    }
    const image = await docker.image(target.ref);
    const resolved = image?.repoDigests.find((d) => d.startsWith(`${target.repository}@`))?.slice(target.repository.length + 1) ?? null;
    if (!image || resolved === null) return failed(`${target.ref}: the engine holds no image resolved from ${target.repository}`, { ref: target.ref, cached });
    if (wanted !== null && !image.repoDigests.includes(wanted)) {
      return failed(`resolved digest ${resolved} does not equal the requested ${target.digest}`, { ref: target.ref, resolved, cached });
    }
    if (target.digest === null) target.digest = resolved; // unsigned tag deploys: pinned from here on
    return ok(cached ? 'already present' : undefined, { ref: target.ref, digest: target.digest, image_id: image.id.slice(0, 19), cached });
  },
};
