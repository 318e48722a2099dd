/**
 * denv's rules for a plan document, and the API server's checks the schemas leave out (pure).
 * Each problem is `path: message`. The caller has already checked that the document is an object
 * with apiVersion, kind (one of PLAN_KINDS) and metadata.name.
 *
 * denv's rules: everything in the agent's namespace (no namespace, or exactly that one); names the
 * API server accepts; the `denv.dev/env` label naming the env (the agent lists and deletes by it);
 * no hostPath volumes, no privileged containers, no host namespaces (a plan is applied into a
 * cluster someone else owns, and must not reach past its namespace).
 */
import { LABEL_ENV, type PlanKind } from '../../../../contracts/kubernetes.js';
import { DNS_1035_LABEL, DNS_1123_LABEL, DNS_1123_SUBDOMAIN, labelValue } from './kube-names.js';

export interface ManifestRules {
  readonly namespace: string;
  readonly envName: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

function nameProblem(kind: PlanKind, name: string): string | null {
  if (kind === 'Service') return DNS_1035_LABEL.test(name) && name.length <= 63 ? null : 'a Service name must be a DNS-1035 label: at most 63 lower-case letters, digits and -, starting with a letter';
  if (kind === 'Deployment') return DNS_1123_LABEL.test(name) && name.length <= 63 ? null : 'a Deployment name must be a DNS-1123 label: at most 63 lower-case letters, digits and -, starting and ending with a letter or digit';
  return DNS_1123_SUBDOMAIN.test(name) && name.length <= 253 ? null : 'expected a DNS-1123 subdomain: at most 253 lower-case letters, digits, - and ., starting and ending with a letter or digit';
}

/** The pod template of a Deployment: what the Deployment controller would refuse or what escapes the namespace. */
function podProblems(spec: Rec, out: string[]): void {
  const selector = isRec(spec.selector) ? spec.selector : {};
  const matchLabels = isRec(selector.matchLabels) ? selector.matchLabels : {};
  const template = isRec(spec.template) ? spec.template : {};
  const templateLabels = isRec(template.metadata) && isRec(template.metadata.labels) ? template.metadata.labels : {};
  if (Object.keys(matchLabels).length === 0 && recs(selector.matchExpressions).length === 0) out.push('spec.selector: must not be empty');
  for (const [key, value] of Object.entries(matchLabels)) {
    if (templateLabels[key] !== value) out.push(`spec.template.metadata.labels: must match spec.selector (${key}=${String(value)})`);
  }
  const pod = isRec(template.spec) ? template.spec : {};
  for (const flag of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[flag] === true) out.push(`spec.template.spec.${flag}: not allowed in a denv plan`);
  const volumes = recs(pod.volumes);
  volumes.forEach((v, i) => {
    if (v.hostPath !== undefined) out.push(`spec.template.spec.volumes.${i}.hostPath: not allowed in a denv plan (a pod must not reach the node's files)`);
  });
  const volumeNames = new Set(volumes.map((v) => v.name));
  if (!Array.isArray(pod.containers) || pod.containers.length === 0) out.push('spec.template.spec.containers: must not be empty');
  const seen = new Set<unknown>();
  for (const field of ['initContainers', 'containers'] as const) {
    recs(pod[field]).forEach((c, i) => {
      const at = `spec.template.spec.${field}.${i}`;
      // A missing name is the schema's to report (it requires one).
      if (typeof c.name === 'string' && (!DNS_1123_LABEL.test(c.name) || c.name.length > 63)) out.push(`${at}.name: must be a DNS-1123 label`);
      else if (seen.has(c.name)) out.push(`${at}.name: "${c.name}" is used twice`);
      seen.add(c.name);
      if (typeof c.image !== 'string' || c.image.trim() === '') out.push(`${at}.image: required`);
      if (isRec(c.securityContext) && c.securityContext.privileged === true) out.push(`${at}.securityContext.privileged: not allowed in a denv plan`);
      recs(c.volumeMounts).forEach((m, j) => {
        if (!volumeNames.has(m.name)) out.push(`${at}.volumeMounts.${j}.name: no volume named "${String(m.name)}" in the pod`);
      });
    });
  }
  if (pod.ephemeralContainers !== undefined) out.push('spec.template.spec.ephemeralContainers: not allowed in a denv plan');
}

export function ruleProblems(kind: PlanKind, doc: Rec & { metadata: Rec & { name: string } }, rules: ManifestRules): string[] {
  const out: string[] = [];
  const { metadata } = doc;
  if (metadata.namespace !== undefined && metadata.namespace !== rules.namespace) out.push(`metadata.namespace: must be absent or "${rules.namespace}" (the agent's namespace), not "${String(metadata.namespace)}"`);
  const nameIssue = nameProblem(kind, metadata.name);
  if (nameIssue) out.push(`metadata.name: ${nameIssue}`);
  const env = labelValue(rules.envName);
  const labels = isRec(metadata.labels) ? metadata.labels : {};
  if (labels[LABEL_ENV] !== env) out.push(`metadata.labels.${LABEL_ENV}: must be "${env}"`);
  const spec = isRec(doc.spec) ? doc.spec : {};
  if (kind === 'Deployment') podProblems(spec, out);
  if (kind === 'Service' && spec.type !== 'ExternalName' && spec.clusterIP !== 'None' && recs(spec.ports).length === 0) out.push('spec.ports: must not be empty');
  if (kind === 'PersistentVolumeClaim') {
    if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) out.push('spec.accessModes: must not be empty');
    const resources = isRec(spec.resources) ? spec.resources : {};
    if (!isRec(resources.requests) || resources.requests.storage === undefined) out.push('spec.resources.requests.storage: required');
  }
  return out;
}
