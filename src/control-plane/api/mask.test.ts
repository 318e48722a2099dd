import { describe, expect, it } from 'vitest';
import { maskArtifact, maskDeep } from './mask.js';

describe('masking secret values in reads', () => {
  it('masks Compose environment (map and list forms) and packed file contents, keeping keys', () => {
    const compose = {
      services: { web: { command: ['x'], environment: { API_KEY: 's1', MODE: 'p' } }, job: { environment: ['TOKEN=s2', 'BARE'] } },
      'x-denv-packed': { 'secret:db': { kind: 'file', entries: [{ path: '', mode: 0o400, content_b64: 'czM=' }] } },
      secrets: { db: { content: 's4' } },
    };
    const out = JSON.stringify(maskDeep(compose));
    for (const secret of ['s1', '"p"', 's2', 'czM=', 's4']) expect(out).not.toContain(secret);
    expect(maskDeep(compose)).toMatchObject({
      services: { web: { command: ['x'], environment: { API_KEY: '***', MODE: '***' } }, job: { environment: ['TOKEN=***', 'BARE'] } },
    });
    expect(compose.services.web.environment.API_KEY).toBe('s1'); // the input is untouched
  });

  it('masks env values in Kubernetes manifests and ECS task definitions, and withholds what does not parse', () => {
    const k8s = 'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - name: API_KEY\n              value: s1\n---\nkind: Secret\ndata:\n  key: czE=\n';
    const masked = maskArtifact(k8s);
    expect(masked).toContain('API_KEY');
    expect(masked).not.toContain('s1');
    expect(masked).not.toContain('czE=');
    const ecs = JSON.stringify({ containerDefinitions: [{ name: 'web', environment: [{ name: 'API_KEY', value: 's2' }] }] });
    expect(maskArtifact(ecs)).not.toContain('s2');
    expect(maskArtifact('a: [unclosed')).toMatch(/^\*\*\* \(not shown/);
    expect(maskArtifact('')).toBe('');
  });
});
