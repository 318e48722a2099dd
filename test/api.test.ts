/** The HTTP contract: closed schemas (400 with the path, nothing written), error shape, team
 *  isolation, pagination, OpenAPI. Runs on both stores. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.js';
import { Api } from './helpers/api.js';
import { freshDataDir, storeOptions, STORES } from './helpers/stores.js';

describe.each(STORES)('API on %s', (store) => {
  let cp: ControlPlane;
  let api: Api;
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions(store, join(freshDataDir(), 'cp'))), log: () => {} });
    api = new Api(cp.url, cp.adminToken);
  });
  afterAll(async () => {
    await cp?.close();
  });

  async function counts() {
    const projects = (await api.get('/v1/projects?limit=500')).body.items.length;
    const envs = (await api.get('/v1/envs?limit=500')).body.items.length;
    const deployments = (await api.get('/v1/deployments?limit=500')).body.items.length;
    return { projects, envs, deployments };
  }

  it('refuses requests without a valid token', async () => {
    const res = await api.get('/v1/projects', 'nope');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    const none = await fetch(`${cp.url}/v1/projects`);
    expect(none.status).toBe(401);
  });

  it.each([
    ['an unknown field', { name: 'p1', colour: 'red' }, 'unknown field "colour"'],
    ['a bad name', { name: 'Not A Slug' }, 'name: expected lowercase'],
    ['a service field denv refuses', { name: 'p2', compose: { services: { web: { command: 'x', privileged: true } } } }, 'services.web.privileged: not supported by denv: a service gets no privileges on its host'],
    ['a field the Compose specification does not know', { name: 'p5', compose: { services: { web: { command: 'x', bogus: 1 } } } }, 'services.web.bogus: not allowed here by the Compose specification'],
    ['a wrong type deep inside', { name: 'p3', compose: { services: { web: { command: 'x', healthcheck: { retries: 'many' } } } } }, 'services.web.healthcheck.retries:'],
    ['YAML that does not parse', { name: 'p4', compose: 'services: [' }, 'compose file: not valid YAML'],
  ])('answers 400 naming the problem for %s, and writes nothing', async (_what, body, message) => {
    const before = await counts();
    const res = await api.post('/v1/projects', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
    expect(['BAD_REQUEST', 'INVALID_COMPOSE']).toContain(res.body.error.code);
    expect(await counts()).toEqual(before);
  });

  it('refuses a bad deploy body before writing anything', async () => {
    expect((await api.post('/v1/projects', { name: 'shop' })).status).toBe(201);
    const before = await counts();
    for (const body of [
      { compose: { services: { web: { command: 'x' } } }, envv: 'typo' },
      { compose: { services: { web: { environment: ['A=1'] } } } },
      { compose: { services: { web: { command: 'x', volumes: ['nope:/d'] } } } },
      { env: 'production' },
      'not json',
    ]) {
      const res = await api.post('/v1/projects/shop/deploy', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toMatch(/BAD_REQUEST|INVALID_COMPOSE/);
    }
    expect(await counts()).toEqual(before);
  });

  it('answers 404 and 409 in the error shape', async () => {
    expect((await api.get('/v1/projects/missing')).body).toEqual({ error: { code: 'NOT_FOUND', message: 'project "missing" not found' } });
    expect((await api.get('/v1/deployments/dep_nope')).status).toBe(404);
    expect((await api.post('/v1/projects', { name: 'shop' })).status).toBe(409);
    expect((await api.get('/v1/nothing-here')).body.error.code).toBe('NOT_FOUND');
  });

  it("keeps teams apart: one team's token cannot read another's deployments", async () => {
    const team = await api.post('/v1/teams', { name: 'other' });
    expect(team.status).toBe(201);
    const tok = await api.post('/v1/tokens', { name: 'ci', team: 'other' });
    expect(tok.status).toBe(201);
    const other = new Api(cp.url, tok.body.token);
    const dep = await api.post('/v1/projects/shop/deploy', { compose: { services: { web: { command: 'true' } } } });
    expect(dep.status).toBe(202);
    expect((await other.get(`/v1/deployments/${dep.body.deployment.id}`)).status).toBe(404);
    expect((await other.get(`/v1/envs/${dep.body.env.id}`)).status).toBe(404);
    expect((await other.get('/v1/deployments')).body.items).toEqual([]);
    expect((await other.get('/v1/projects/shop')).status).toBe(404);
    expect((await other.get(`/v1/events?subject=dep:${dep.body.deployment.id}`)).body.items).toEqual([]);
    // and a team token cannot create teams or mint tokens for other teams
    expect((await other.post('/v1/teams', { name: 'third' })).status).toBe(403);
    expect((await other.post('/v1/tokens', { name: 'x', team: 'default' })).status).toBe(403);
  });

  it('pages lists with limit and after', async () => {
    for (const name of ['pa', 'pb', 'pc']) await api.post('/v1/projects', { name });
    const all = (await api.get('/v1/projects?limit=500')).body.items.map((p: { name: string }) => p.name);
    const first = (await api.get('/v1/projects?limit=2')).body;
    expect(first.items).toHaveLength(2);
    expect(first.next).toEqual(expect.any(String));
    const second = (await api.get(`/v1/projects?limit=500&after=${first.next}`)).body;
    expect([...first.items, ...second.items].map((p: { name: string }) => p.name)).toEqual(all);
    expect(second.next).toBeNull();
    expect((await api.get('/v1/projects?after=garbage')).status).toBe(400);
  });

  it('serves an OpenAPI document generated from the request schemas', async () => {
    const doc = (await (await fetch(`${cp.url}/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    const deploy = doc.paths['/v1/projects/{project}/deploy'].post;
    const schema = deploy.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['compose', 'env', 'warm', 'target', 'envelope']));
    expect(doc.paths['/v1/deployments/{id}'].get).toBeDefined();
  });
});
