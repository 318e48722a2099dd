/**
 * Whether a set of documents may be stored as a plan and sent to an agent: the check every plan
 * passes (the deterministic one, an edited one, an LLM's) before approval. Each problem names the
 * document (1-based, as a person counts the YAML's documents), its kind and name, and the path:
 * `document 2 (Deployment prod-web): spec.replicas: must be integer`. [] when valid.
 */
import { PLAN_KINDS, type PlanKind } from '../../../../contracts/kubernetes.js';
import { ruleProblems, type ManifestRules } from './rule-problems.js';
import { KIND_SCHEMAS, schemaProblems } from './schema-problems.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateManifests(docs: readonly unknown[], rules: ManifestRules): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  docs.forEach((doc, i) => {
    const at = `document ${i + 1}`;
    if (!isRec(doc) || typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string' || !isRec(doc.metadata) || typeof doc.metadata.name !== 'string' || doc.metadata.name === '') {
      problems.push(`${at}: expected an object with apiVersion, kind and metadata.name`);
      return;
    }
    const who = `${at} (${doc.kind} ${doc.metadata.name})`;
    if (!(PLAN_KINDS as readonly string[]).includes(doc.kind)) {
      problems.push(`${who}: kind ${doc.kind} is not allowed in a denv plan (allowed: ${PLAN_KINDS.join(', ')})`);
      return;
    }
    const kind = doc.kind as PlanKind;
    const apiVersion = KIND_SCHEMAS[kind].apiVersion;
    if (doc.apiVersion !== apiVersion) {
      problems.push(`${who}: apiVersion must be ${apiVersion} for ${kind}, not ${doc.apiVersion}`);
      return;
    }
    const key = `${kind}/${doc.metadata.name}`;
    const first = seen.get(key);
    if (first !== undefined) problems.push(`${who}: the same ${kind} as document ${first}`);
    else seen.set(key, i + 1);
    const metadata = doc.metadata as Rec & { name: string };
    for (const p of [...schemaProblems(kind, doc), ...ruleProblems(kind, { ...doc, metadata }, rules)]) problems.push(`${who}: ${p}`);
  });
  return problems;
}
