/**
 * Manifests as multi-document YAML (the plan's artifact, what a person approves) and back (an
 * edited or LLM-written artifact). Writing is deterministic: keys in the order the builders put
 * them, no line folding, no anchors, one `---` between documents.
 *
 * YAML 1.1 both ways, as kubectl reads it (sigs.k8s.io/yaml): a string `on`, `no` or `yes` is
 * written quoted, so the artifact means the same to kubectl as to us.
 */
import { parseAllDocuments, stringify } from 'yaml';
import type { KubeObject } from '../../../../contracts/kubernetes.js';

export function manifestsYaml(manifests: readonly KubeObject[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' })).join('---\n');
}

/** Every non-empty document of `text`, as plain data; throws naming the first broken document. */
export function parseManifestsYaml(text: string): unknown[] {
  const docs = parseAllDocuments(text, { version: '1.1' });
  if (!Array.isArray(docs)) return []; // an empty stream
  const out: unknown[] = [];
  docs.forEach((doc, i) => {
    const error = doc.errors[0];
    if (error) throw new Error(`manifests: document ${i + 1} is not valid YAML: ${error.message.split('\n')[0]}`);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) out.push(value);
  });
  return out;
}
