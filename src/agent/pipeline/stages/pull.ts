/**
 * pull (seed 004, stage 4): `docker pull repo@sha256:…`, then re-check that the image the engine
 * now holds was resolved from exactly the requested digest (its RepoDigests). An image already
 * present under that digest is not fetched again: a digest names its content. Hard gate: a
 * failure changes nothing (no container is touched before recreate).
 */
import { failed, ok, type Stage } from '../stage.js';

export const pull: Stage = {
  name: 'pull',
  onFailure: 'fail',
  async run({ host, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const target = state.target!;
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
