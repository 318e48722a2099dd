/**
 * A Compose project as people write it, deployed with the real CLI (`denv deploy -f`) to a real
 * control plane and agent: `.env` interpolation with defaults, an `env_file`, YAML anchors and
 * merge keys, `extends`, a profile left out, a secret read from a file beside the Compose file and
 * a config given inline. The process service reads what it got (its environment, and the files
 * whose paths `DENV_SECRET_*` / `DENV_CONFIG_*` hold) and answers it over HTTP; the secret's
 * content never shows in the deployment's evidence or the env's events.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv } from './helpers/processes.js';
import { freshDataDir } from './helpers/stores.js';

/** Answers JSON: selected variables, the secret's and the config's content, its uid, and whether the secret file is only its own. */
const READER = `
const fs = require('fs'), http = require('http');
http.createServer((req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  const secret = process.env.DENV_SECRET_DB_PASSWORD, config = process.env.DENV_CONFIG_SETTINGS;
  const st = fs.statSync(secret);
  res.end(JSON.stringify({
    env: { GREETING: process.env.GREETING, LEVEL: process.env.LEVEL, REGION: process.env.REGION, PRICE: process.env.PRICE, FROM_BASE: process.env.FROM_BASE },
    secret: fs.readFileSync(secret, 'utf8'), secretMode: (st.mode & 0o777).toString(8), secretOwned: st.uid === process.getuid(),
    config: fs.readFileSync(config, 'utf8'),
  }));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('denv deploy -f of a Compose project as people write it', () => {
  let h: Harness;
  let dir = '';
  beforeAll(async () => {
    h = await startHarness();
    dir = freshDataDir('denv-compose-project-');
    mkdirSync(path.join(dir, 'secrets'));
    writeFileSync(path.join(dir, 'secrets', 'db_password.txt'), 's3cret-from-a-file');
    writeFileSync(path.join(dir, '.env'), 'GREETING=hello from .env\n');
    writeFileSync(path.join(dir, 'app.env'), '# an env_file\nLEVEL=debug\nexport REGION="eu-west"\n');
    writeFileSync(path.join(dir, 'base.yaml'), 'services:\n  base:\n    environment:\n      FROM_BASE: "yes"\n');
    writeFileSync(
      path.join(dir, 'compose.yaml'),
      [
        'name: shop',
        'x-health: &health',
        '  x-denv: {health: {path: /healthz}}',
        'services:',
        '  web:',
        '    <<: *health',
        '    extends: {file: base.yaml, service: base}',
        `    command: [node, -e, ${JSON.stringify(READER)}]`,
        '    env_file: app.env',
        '    environment:',
        '      GREETING: ${GREETING}',
        '      PRICE: "$$5 ${CURRENCY:-EUR}"',
        '    secrets: [db_password]',
        '    configs: [settings]',
        '  debug:',
        '    profiles: [debug]',
        '    command: [node, -e, "process.exit(1)"]',
        'secrets:',
        '  db_password: {file: ./secrets/db_password.txt}',
        'configs:',
        '  settings: {content: "mode=production"}',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('loads, packs and deploys it; the service gets every value and file as Compose means them', async () => {
    const child = spawnDenv(['deploy', '-f', path.join(dir, 'compose.yaml'), '--env', 'production', '--watch', '--json', '--url', h.cp.url, '--token', h.cp.adminToken]);
    await new Promise((resolve) => (child.proc.exitCode !== null ? resolve(null) : child.proc.once('exit', resolve)));
    expect(child.proc.exitCode, child.output()).toBe(0);
    const envs = (await h.api.get('/v1/envs')).body.items as Env[];
    const env = envs.find((e) => e.name === 'production')!;
    expect(env.endpoints.map((e) => e.service)).toEqual(['web']); // the debug profile was not active
    const answer = JSON.parse(await (await fetch(env.endpoints[0]!.url)).text());
    expect(answer).toEqual({
      env: { GREETING: 'hello from .env', LEVEL: 'debug', REGION: 'eu-west', PRICE: '$5 EUR', FROM_BASE: 'yes' },
      secret: 's3cret-from-a-file',
      secretMode: '400',
      secretOwned: true,
      config: 'mode=production',
    });
    const deployments = (await h.api.get(`/v1/deployments?env=${env.id}`)).body.items;
    const events = (await h.api.get(`/v1/events?subject=env:${env.id}`)).body.items;
    expect(JSON.stringify([deployments, events])).not.toContain('s3cret-from-a-file');
    expect(JSON.stringify((await h.api.get(`/v1/envs/${env.id}/versions`)).body)).not.toContain(Buffer.from('s3cret-from-a-file').toString('base64'));
  });
});
