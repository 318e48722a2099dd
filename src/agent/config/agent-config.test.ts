import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgentConfig, parseListen, resolveAgentConfig } from './agent-config.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-agent-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pem = (curve: string) => generateKeyPairSync('ec', { namedCurve: curve }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('agent config', () => {
  it('reads agent.yaml with keys relative to its directory', async () => {
    writeFileSync(join(dir, 'ci.pub'), pem('prime256v1'));
    writeFileSync(
      join(dir, 'agent.yaml'),
      'name: host-a\ntrusted_keys: [ci.pub]\nallow:\n  repositories: ["127.0.0.1:5000/team"]\n  services: [web]\nlisten: 127.0.0.1:7070\nnetwork: host\ndatasets: data\n',
    );
    const cfg = await loadAgentConfig(join(dir, 'agent.yaml'));
    expect(cfg).toMatchObject({
      name: 'host-a',
      allow: { repositories: ['127.0.0.1:5000/team'], services: ['web'] },
      listen: { host: '127.0.0.1', port: 7070 },
      datasets: join(dir, 'data'),
      requireSignature: true,
      network: 'host',
      envDir: null,
    });
    expect(cfg.trustedKeys).toHaveLength(1);
    expect(cfg.trustedKeys[0]!.fingerprint).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('defaults: nothing allowed, signatures required, bridge networking, no listener', async () => {
    const cfg = await resolveAgentConfig({}, dir);
    expect(cfg).toMatchObject({ trustedKeys: [], allow: { repositories: [], services: [] }, listen: null, requireSignature: true, network: 'bridge' });
  });

  it('refuses unknown keys, bad values and keys that are not P-256', async () => {
    await expect(resolveAgentConfig({ trusted_key: [] }, dir)).rejects.toThrow(/unknown field "trusted_key"/);
    await expect(resolveAgentConfig({ allow: { repos: [] } }, dir)).rejects.toThrow(/allow: unknown field "repos"/);
    await expect(resolveAgentConfig({ network: 'overlay' }, dir)).rejects.toThrow(/network/);
    await expect(resolveAgentConfig({ listen: '7070' }, dir)).rejects.toThrow(/listen/);
    writeFileSync(join(dir, 'p384.pub'), pem('secp384r1'));
    await expect(resolveAgentConfig({ trusted_keys: ['p384.pub'] }, dir)).rejects.toThrow(/expected an ECDSA P-256/);
    await expect(resolveAgentConfig({ trusted_keys: ['missing.pub'] }, dir)).rejects.toThrow(/cannot read .*missing\.pub: ENOENT/);
  });

  it('parses listen addresses', () => {
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
  });
});
