/**
 * Files a Compose file gives an image service (issue 9 point 2): a config, a secret and a bind
 * mount of a directory beside the Compose file, packed into the version the way `denv deploy -f`
 * packs them (`x-denv-packed`), written on the host and mounted read-only into the container. A
 * signed deploy refuses them at admit, since no signature covers their content. Real engine,
 * registry and agent; the host does not require signatures (`require_signature: false`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { buildHttpdImage, requireDockerAndRegistry, type TestImage } from './helpers/docker-images.js';
import { closeDockerHarness } from './helpers/docker-agent.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from './helpers/envelopes.js';
import { startHarness, type Harness } from './helpers/harness.js';

let h: Harness;
let key: TestKey;
let web: TestImage;
const dir = mkdtempSync(join(tmpdir(), 'denv-files-'));
const envDir = mkdtempSync('/dev/shm/denv-test-env-');
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What the CLI sends for a Compose file beside `./static/` and `./pw.txt` (absolute paths as loaded). */
const composeOf = () => ({
  services: {
    web: {
      image: `${web.repository}@${web.digest}`,
      'x-denv': { health: { path: '/healthz', timeout: '10s' } },
      volumes: [{ type: 'bind', source: '/project/static', target: '/www/static', read_only: true }],
      configs: [{ source: 'page', target: '/www/page.html' }],
      secrets: ['pw'],
    },
  },
  configs: { page: { content: 'a config page' } },
  secrets: { pw: { file: '/project/pw.txt' } },
  'x-denv-packed': {
    '/project/static': { kind: 'dir', entries: [{ path: 'hello.txt', mode: 0o644, content_b64: b64('from a bind mount') }] },
    '/project/pw.txt': { kind: 'file', entries: [{ path: '', mode: 0o600, content_b64: b64('pw-value') }] },
  },
});

async function deploy(body: Record<string, unknown>): Promise<Deployment> {
  const res = await h.api.post('/v1/projects/files/deploy', { env: 'production', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return h.api.finished(res.body.deployment.id, 120_000);
}

beforeAll(async () => {
  await requireDockerAndRegistry();
  web = await buildHttpdImage('files-web', { 'index.html': 'index', healthz: 'ok' }, { listen: 'any' });
  key = testKey();
  writeFileSync(join(dir, 'ci.pub'), key.publicPem);
  writeFileSync(join(dir, 'agent.yaml'), stringify({ trusted_keys: ['ci.pub'], allow: { repositories: ['127.0.0.1:5000/denv-test/'], services: ['web'] }, require_signature: false, env_dir: envDir }));
  h = await startHarness({ agentConfig: join(dir, 'agent.yaml') });
  expect((await h.api.post('/v1/projects', { name: 'files' })).status).toBe(201);
}, 180_000);

afterAll(() => closeDockerHarness(h, dir, envDir));

describe('files of an image service', () => {
  it('mounts its bind mount, config and secret read-only, with their packed content', async () => {
    const dep = await deploy({ compose: composeOf() });
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const env: Env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    const url = env.endpoints[0]!.url;
    expect(await (await fetch(`${url}/static/hello.txt`)).text()).toBe('from a bind mount');
    expect(await (await fetch(`${url}/page.html`)).text()).toBe('a config page');
    const container = execFileSync('docker', ['ps', '-q', '--filter', `label=dev.denv.slot=${dep.env}/web`], { encoding: 'utf8' }).trim();
    expect(execFileSync('docker', ['exec', container, '/bin/busybox', 'cat', '/run/secrets/pw'], { encoding: 'utf8' })).toBe('pw-value');
    // Read-only inside the container.
    expect(() => execFileSync('docker', ['exec', container, '/bin/busybox', 'touch', '/www/static/new'], { stdio: 'pipe' })).toThrow();
  });

  it('refuses them on a signed deploy, before any effect', async () => {
    const envelope = envelopeOf(payloadOf({ service: 'web', repository: web.repository, digest: web.digest, host: 'test-host' }), key);
    const dep = await deploy({ env: 'signed', compose: composeOf(), envelope });
    expect(dep.status).toBe('failed');
    expect(dep.error).toContain('bind mounts, secrets and configs (/www/static, /run/secrets/pw, /www/page.html) are refused on a signed deploy');
  });
});
