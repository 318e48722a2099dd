import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import { manifestsYaml, parseManifestsYaml } from './manifests-yaml.js';

const labels = { 'denv.dev/env': 'prod' };
const docs: KubeObject[] = [
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', labels }, spec: { ports: [{ port: 80 }] } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', labels }, data: { 'no': 'on', long: 'x'.repeat(200) } },
];

describe('manifests YAML', () => {
  it('writes one document per object: no folding, strings YAML 1.1 would read as booleans quoted', () => {
    expect(manifestsYaml(docs)).toBe(`apiVersion: v1
kind: Service
metadata:
  name: a
  labels:
    denv.dev/env: prod
spec:
  ports:
    - port: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  labels:
    denv.dev/env: prod
data:
  "no": "on"
  long: ${'x'.repeat(200)}
`);
  });

  it('reads back what it writes; skips empty documents', () => {
    expect(parseManifestsYaml(manifestsYaml(docs))).toEqual(docs);
    expect(parseManifestsYaml('---\n# nothing\n---\nkind: Service\n---\n')).toEqual([{ kind: 'Service' }]);
    expect(parseManifestsYaml('')).toEqual([]);
    expect(parseManifestsYaml('a: on\nb: "on"')).toEqual([{ a: true, b: 'on' }]);
  });

  it('throws on invalid YAML, naming the document', () => {
    expect(() => parseManifestsYaml('kind: Service\n---\nmetadata: {name: [\n')).toThrow(/^manifests: document 2 is not valid YAML: /);
  });
});
