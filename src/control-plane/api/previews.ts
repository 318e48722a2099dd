/**
 * Preview environments by hand (issue 13; GitHub pull requests open and close them through the
 * webhook): `POST /v1/projects/{p}/previews {ref, name?}` deploys the linked repository at `ref`
 * to a preview env, forked from production's latest healthy snapshot when it is new;
 * `DELETE /v1/projects/{p}/previews/{name}` tears it down (preview-envs.ts).
 */
import { previewBody } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { branchPreviewName, closePreview, openPreview } from './preview-envs.js';
import { findProject } from './lookup.js';
import { route } from './route.js';

export const previewRoutes = [
  route({
    method: 'POST', url: '/v1/projects/:project/previews', body: previewBody, status: 202,
    summary: 'Deploy the linked repository at ref to a preview env (name, default preview-<ref>), forked from production\'s latest healthy snapshot when new (202 {deployment, env, forked_from})',
    async handler(ctx, { auth, body, params }) {
      const project = await findProject(ctx.db, auth.team, params.project!);
      const name = body.name ?? branchPreviewName(body.ref);
      return openPreview(ctx, project, { name, ref: body.ref, branch: null });
    },
  }),
  route({
    method: 'DELETE', url: '/v1/projects/:project/previews/:name', status: 202,
    summary: 'Tear a preview env down (202 {env, deployment}; 404 when there is none)',
    async handler(ctx, { auth, params }) {
      const project = await findProject(ctx.db, auth.team, params.project!);
      const closed = await closePreview(ctx, project, params.name!);
      if (!closed) throw new DenvError('NOT_FOUND', `project ${project.name} has no preview env "${params.name}"`);
      return closed;
    },
  }),
];
