/**
 * Issue 10: the cross-team matrix and secret masking, against the running system (a control plane
 * and a real agent process). Team A deploys an env whose Compose carries a secret; then every
 * route of `/openapi.json` — so a new route is covered without anyone adding it here — is called
 * with no token, with A's revoked token and with team B's token, aimed at A's resources:
 *
 * - no token and the revoked token: 401, always;
 * - team B: never a 2xx on a route aimed at A's resource (404 or 403), never any of A's ids, names
 *   or secret in any answer, and afterwards A's state is exactly as before.
 *
 * A path parameter this file does not know fails the test: a new kind of resource must be given
 * an id of A's here (that is the only thing to add).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { twoTeams, type TwoTeams } from './two-teams.js';

const SECRET = 'sekrit-9f3a1c77';
/** A's DNS provider key (team edge settings): never in any answer, to A or B. */
const EDGE_SECRET = 'edgekey-5b21d0e9';

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean }[]; requestBody?: unknown }>>;
}

interface Fixture {
  team: string; project: string; env: string; deployment: string; version: string; plan: string;
  host: string; enrollmentKey: string; spareToken: string; cloud: string;
}

const AWS_KEY_ID = 'AKIAALPHAALPHA000001';
const AWS_SECRET = 'alpha-aws-secret-never-shown-000001';
/** A's registry login (project registry_credentials): the password is never in any answer, to A or B; B sees not even the user. */
const REGISTRY_USER = 'alpha-registry-user';
const REGISTRY_PASSWORD = 'alpha-registry-password-never-shown-01';

describe('cross-team matrix and masking', () => {
  let h: Harness;
  let t: TwoTeams;
  let revoked: Api;
  let a: Fixture;
  let markers: string[];

  beforeAll(async () => {
    h = await startHarness();
    t = await twoTeams(h.cp.url, h.cp.adminToken);
    const team = (await t.a.get('/v1/tokens')).body.items.find((x: { id: string }) => x.id === t.aTokenId).team;
    expect((await t.a.post('/v1/projects', { name: 'alpha-app', registry_credentials: { server: 'registry.alpha.example', username: REGISTRY_USER, password: REGISTRY_PASSWORD } })).status).toBe(201);
    const project = (await t.a.get('/v1/projects/alpha-app')).body.id;
    const dep = await t.a.post('/v1/projects/alpha-app/deploy', {
      compose: { services: { web: { command: ['sleep', '300'], environment: { API_KEY: SECRET, MODE: 'plain' } } } },
    });
    expect(dep.status).toBe(202);
    expect((await t.a.finished(dep.body.deployment.id)).status).toBe('succeeded');
    const env = dep.body.env.id;
    const version = (await t.a.get(`/v1/envs/${env}/versions`)).body.items[0].id;
    const plan = (await t.a.get(`/v1/envs/${env}/plans`)).body.items[0].id;
    const enrollmentKey = (await t.a.post('/v1/enrollment-keys', {})).body.id;
    const cloud = (await t.a.post('/v1/clouds', { name: 'alpha-cloud', provider: 'manual' })).body.id;
    expect((await t.a.post('/v1/aws-accounts', { name: 'alpha-aws', region: 'eu-central-1', access_key_id: AWS_KEY_ID, secret_access_key: AWS_SECRET })).status).toBe(201);
    const spareToken = (await t.a.post('/v1/tokens', { name: 'spare' })).body.id;
    const gone = await t.a.post('/v1/tokens', { name: 'revoked' });
    expect((await t.a.req('DELETE', `/v1/tokens/${gone.body.id}`)).status).toBe(200);
    revoked = new Api(h.cp.url, gone.body.token);
    const edge = await t.a.req('PUT', '/v1/edge', { base_domain: 'alpha-zone.example', dns: { provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: EDGE_SECRET, zone: 'alpha-zone.example' } });
    expect(edge.status).toBe(200);
    a = { team, project, env, deployment: dep.body.deployment.id, version, plan, host: h.hostId, enrollmentKey, spareToken, cloud };
    markers = [...Object.values(a), 'alpha-app', 'test-host', 'alpha-cloud', 'alpha-aws', AWS_KEY_ID, AWS_SECRET, SECRET, EDGE_SECRET, 'alpha-zone.example', REGISTRY_USER, REGISTRY_PASSWORD];
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  /** A's state that no call of B may change. */
  async function snapshotOfA() {
    const env = (await t.a.get(`/v1/envs/${a.env}`)).body;
    return {
      env: { status: env.status, current_version: env.current_version, host: env.host },
      deployments: (await t.a.get(`/v1/deployments?env=${a.env}`)).body.items.map((d: { id: string; status: string }) => [d.id, d.status]),
      projects: (await t.a.get('/v1/projects')).body.items.map((p: { id: string }) => p.id),
      host: (await t.a.get('/v1/hosts')).body.items.map((x: { id: string; status: string }) => [x.id, x.status]),
      tokens: (await t.a.get('/v1/tokens')).body.items.map((x: { id: string; revoked_at: string | null }) => [x.id, x.revoked_at]),
      keys: (await t.a.get('/v1/enrollment-keys')).body.items.map((x: { id: string; state: string }) => [x.id, x.state]),
      clouds: (await t.a.get('/v1/clouds')).body.items.map((x: { id: string; name: string }) => [x.id, x.name]),
      awsAccounts: (await t.a.get('/v1/aws-accounts')).body.items.map((x: { id: string; name: string; handover_requested_at: string | null }) => [x.id, x.name, x.handover_requested_at]),
      edge: (await t.a.get('/v1/edge')).body,
    };
  }

  /** Concrete calls for every operation of the OpenAPI document, aimed at A's resources. */
  async function calls(): Promise<{ method: string; path: string; url: string; body?: unknown; targetsA: boolean }[]> {
    const doc = (await (await fetch(`${h.cp.url}/openapi.json`)).json()) as OpenApi;
    const idFor = (path: string, name: string): string => {
      if (name === 'env') return a.env;
      if (name === 'project') return a.project;
      // A's env by name (previews are addressed by env name within the project).
      if (name === 'name' && path.startsWith('/v1/projects/{project}/previews/')) return 'production';
      if (name === 'name' && path.startsWith('/v1/clouds/')) return 'alpha-cloud';
      if (name === 'name' && path.startsWith('/v1/aws-accounts/')) return 'alpha-aws';
      if (name === 'id') {
        if (path.startsWith('/v1/deployments/')) return a.deployment;
        if (path.startsWith('/v1/hosts/')) return a.host;
        if (path.startsWith('/v1/tokens/')) return a.spareToken;
        if (path.startsWith('/v1/enrollment-keys/')) return a.enrollmentKey;
        if (path.startsWith('/v1/plans/')) return a.plan;
        if (path.startsWith('/v1/versions/')) return a.version;
      }
      throw new Error(`matrix: no id of team A for {${name}} in ${path}; add one to idFor`);
    };
    // Bodies that pass validation (so the call reaches the handler), some aimed at A by reference.
    const bodies: Record<string, unknown> = {
      'POST /v1/projects': { name: 'bee-app' },
      'POST /v1/tokens': { name: 'b-token', team: a.team },
      'POST /v1/sandboxes': { from_version: a.version },
      'POST /v1/projects/{project}/deploy': { compose: { services: { web: { command: ['true'] } } }, target: { host: a.host } },
      'POST /v1/envs/{env}/rollback': { version: a.version },
      'POST /v1/envs/{env}/move': { to: a.host },
      'POST /v1/envs/{env}/replan': { guidance: 'x' },
      'POST /v1/teams': { name: 'charlie' },
      'POST /v1/clouds': { name: 'bee-cloud', provider: 'manual' },
      'POST /v1/aws-accounts': { name: 'bee-aws', region: 'eu-central-1', access_key_id: 'AKIABEEBEEBEEBEE0001', secret_access_key: 'bee-secret-bee-secret-0001' },
      'POST /v1/projects/{project}/previews': { ref: 'main' },
    };
    const out = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const params = (op.parameters ?? []).filter((p) => p.in === 'path');
        let url = path;
        for (const p of params) url = url.replace(`{${p.name}}`, idFor(path, p.name));
        const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${p.name === 'subject' ? `env:${a.env}` : 'x'}`);
        if (query.length > 0) url += `?${query.join('&')}`;
        const key = `${method.toUpperCase()} ${path}`;
        const body = method === 'get' || method === 'delete' ? undefined : (bodies[key] ?? {});
        out.push({ method: method.toUpperCase(), path, url, body, targetsA: params.length > 0 || key === 'POST /v1/sandboxes' || key === 'POST /v1/tokens' });
      }
    }
    return out;
  }

  async function call(method: string, url: string, token: string | null, body?: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(h.cp.url + url, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // An event stream that opened would not end: read only its start.
    const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? (await res.body?.cancel(), '<stream>') : await res.text();
    return { status: res.status, text };
  }

  it('every route refuses no token and a revoked token with 401', async () => {
    const all = await calls();
    expect(all.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const c of all) {
      for (const [who, token] of [['no token', null], ['revoked', revoked.token]] as const) {
        const res = await call(c.method, c.url, token, c.body);
        if (res.status !== 401) wrong.push(`${who}: ${c.method} ${c.path} → ${res.status} ${res.text.slice(0, 120)}`);
        if (markers.some((m) => res.text.includes(m))) wrong.push(`${who}: ${c.method} ${c.path} leaks: ${res.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("team B reads none of A's data and changes none of A's state, on every route", async () => {
    const before = await snapshotOfA();
    const wrong: string[] = [];
    for (const c of await calls()) {
      const res = await call(c.method, c.url, t.b.token, c.body);
      const sent = c.url + JSON.stringify(c.body ?? '');
      const leaked = markers.filter((m) => !sent.includes(m) && res.text.includes(m));
      if (leaked.length > 0) wrong.push(`${c.method} ${c.path} → ${res.status} names A's ${leaked.join(', ')}: ${res.text.slice(0, 200)}`);
      if (c.targetsA && res.status < 400) wrong.push(`${c.method} ${c.path} → ${res.status} on A's resource`);
      if (c.targetsA && ![400, 403, 404, 409].includes(res.status)) wrong.push(`${c.method} ${c.path} → ${res.status} (expected 403/404)`);
      if (res.status >= 500) wrong.push(`${c.method} ${c.path} → ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(await snapshotOfA()).toEqual(before);
  });

  it("for team B, A's env does not exist: every lifecycle action and data operation on it answers 404, whatever A's env allows now", async () => {
    const envCalls = (await calls()).filter((c) => c.path.startsWith('/v1/envs/{env}'));
    const posts = envCalls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`);
    // The list comes from /openapi.json; these must be among it (a renamed route fails here).
    expect(posts).toEqual(expect.arrayContaining([
      'POST /v1/envs/{env}/approve', 'POST /v1/envs/{env}/replan', 'POST /v1/envs/{env}/stop', 'POST /v1/envs/{env}/start',
      'POST /v1/envs/{env}/teardown', 'POST /v1/envs/{env}/separate', 'DELETE /v1/envs/{env}/record', 'DELETE /v1/envs/{env}',
      'POST /v1/envs/{env}/rollback', 'POST /v1/envs/{env}/move',
    ]));
    const before = await snapshotOfA();
    const wrong: string[] = [];
    for (const c of envCalls) {
      const res = await call(c.method, c.url, t.b.token, c.body);
      // 409 would tell B that the env exists (and name its status); 400 that the route reached it.
      if (res.status !== 404 || !res.text.includes('NOT_FOUND')) wrong.push(`${c.method} ${c.path} → ${res.status} ${res.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
    expect(await snapshotOfA()).toEqual(before);
  });

  it("masks A's environment values in versions, plans and projects; reveal needs an admin-scoped token", async () => {
    const reads = [
      `/v1/envs/${a.env}`, `/v1/envs/${a.env}/versions`, `/v1/envs/${a.env}/plans`, `/v1/deployments/${a.deployment}`,
      `/v1/deployments?env=${a.env}`, `/v1/events?subject=env:${a.env}`, `/v1/events?subject=dep:${a.deployment}`, `/v1/projects/alpha-app`, `/v1/envs`,
    ];
    for (const path of reads) {
      const res = await t.a.get(path);
      expect(res.status, path).toBe(200);
      expect(JSON.stringify(res.body), path).not.toContain(SECRET);
      expect(JSON.stringify(res.body), path).not.toContain(REGISTRY_PASSWORD);
    }
    // Not even reveal shows the registry password: only that it is set, with the server and user.
    for (const path of ['/v1/projects/alpha-app?reveal=true', '/v1/projects?reveal=true']) expect(JSON.stringify((await t.a.get(path)).body), path).not.toContain(REGISTRY_PASSWORD);
    expect((await t.a.get('/v1/projects/alpha-app')).body.registry_credentials).toEqual({ server: 'registry.alpha.example', username: REGISTRY_USER });
    const versions = (await t.a.get(`/v1/envs/${a.env}/versions`)).body.items;
    expect(versions[0].services.web.environment).toMatchObject({ API_KEY: '***', MODE: '***' });
    const plan = (await t.a.get(`/v1/envs/${a.env}/plans`)).body.items[0];
    expect(plan.artifact).toContain('API_KEY');
    expect(plan.artifact).toContain('***');

    const revealed = await t.a.get(`/v1/envs/${a.env}/versions?reveal=true`);
    expect(revealed.body.items[0].services.web.environment.API_KEY).toBe(SECRET);
    expect((await t.a.get(`/v1/envs/${a.env}/plans?reveal=true`)).body.items[0].artifact).toContain(SECRET);
    const ci = new Api(h.cp.url, (await t.a.post('/v1/tokens', { name: 'ci', scope: 'deploy' })).body.token);
    const refused = await ci.get(`/v1/envs/${a.env}/versions?reveal=true`);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(SECRET);
    expect(JSON.stringify((await ci.get(`/v1/envs/${a.env}/versions`)).body)).not.toContain(SECRET);
  });

  it("a rollback to another env's version is refused without naming that env", async () => {
    const dep = await t.a.post('/v1/projects/alpha-app/deploy', { env: 'staging', compose: { services: { web: { command: ['sleep', '300'] } } } });
    expect((await t.a.finished(dep.body.deployment.id)).status).toBe('succeeded');
    const other = dep.body.env.id;
    const foreign = (await t.a.get(`/v1/envs/${other}/versions`)).body.items[0].id;
    const res = await t.a.post(`/v1/envs/${a.env}/rollback`, { version: foreign });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('has no such version');
    expect(res.body.error.message).not.toContain(other);
  });
});
