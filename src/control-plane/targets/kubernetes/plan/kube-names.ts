/**
 * Names and label values Kubernetes accepts, made from denv's names (env, service, volume), which
 * allow characters Kubernetes refuses (`_`, `.`, upper case). Pure and stable: the same input
 * always gives the same name, and a name never depends on the other names of the plan, so adding a
 * service does not rename the objects of another (evolve matches on them).
 *
 * A name that had to be changed (or shortened) ends in `-<6 hex of sha256(original)>`, so two
 * inputs that sanitise alike (`web_1`, `web-1`) still get different names.
 */
import { createHash } from 'node:crypto';

/** A DNS-1035 label (Service names; also valid DNS-1123 labels and subdomains). */
export const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 label (Deployment names here, pod volume and container names). */
export const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 subdomain (PVC, Ingress, ConfigMap, Secret names), at most 253 characters. */
export const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label value: empty, or at most 63 of [A-Za-z0-9-_.] starting and ending alphanumeric. */
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const MAX_LABEL = 63;
const HASH_LENGTH = 6;

function shortHash(raw: string): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, HASH_LENGTH);
}

/** `base` cut to leave room for `-<hash>`, and its trailing separators trimmed. */
function withHash(base: string, raw: string, trim: RegExp): string {
  const cut = base.slice(0, MAX_LABEL - HASH_LENGTH - 1).replace(trim, '');
  return cut === '' ? shortHash(raw) : `${cut}-${shortHash(raw)}`;
}

/**
 * `parts` joined with `-` as an object name: a DNS-1035 label (≤63, lower case, starting with a
 * letter), valid for every kind a plan holds. Unchanged when the joined text already is one.
 */
export function kubeName(...parts: readonly string[]): string {
  const raw = parts.join('-');
  if (DNS_1035_LABEL.test(raw) && raw.length <= MAX_LABEL) return raw;
  let base = raw.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(base)) base = `d-${base}`.replace(/-+$/, '');
  return withHash(base, raw, /-+$/);
}

/** A label value for `raw`: unchanged when already valid, else sanitised with a hash suffix. */
export function labelValue(raw: string): string {
  if (LABEL_VALUE.test(raw) && raw.length <= MAX_LABEL) return raw;
  const base = raw.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return withHash(base, raw, /[^A-Za-z0-9]+$/);
}

/** A container or pod-volume name (DNS-1123 label) for a service or volume name. */
export function labelName(raw: string): string {
  if (DNS_1123_LABEL.test(raw) && raw.length <= MAX_LABEL) return raw;
  const base = raw.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-+|-+$/g, '');
  return withHash(base, raw, /-+$/);
}

/** A container/Service port name (IANA_SVC_NAME: ≤15, lower case, a letter): `tcp-8080`, `udp-53`. */
export function portName(protocol: 'tcp' | 'udp', port: number): string {
  return `${protocol}-${port}`;
}
