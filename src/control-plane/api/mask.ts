/**
 * Reads of what a team deployed show its secrets' names, never their values (issue 10, item 11):
 * Compose `environment` values, Kubernetes/ECS `env`/`environment` `value`s, and the contents of
 * packed files (`files`, Compose `secrets`/`configs`) become "***". The keys stay, so a reader
 * still sees which variables and files a version sets. `?reveal=true` with an admin-scoped token
 * answers the stored values (`revealAllowed`).
 *
 * Pure: every function returns a masked copy and never touches its input.
 */
import { parseAllDocuments, stringify } from 'yaml';
import { DenvError } from '../../contracts/errors.js';
import type { Auth } from './route.js';

export const MASK = '***';

const CONTENT_KEYS = new Set(['content', 'content_b64', 'data', 'stringData']);

function maskValues(v: unknown): unknown {
  if (Array.isArray(v)) {
    // [{name, value}] (Kubernetes env, ECS environment) or ["K=V"] (Compose list form)
    return v.map((item) => {
      if (typeof item === 'string') return item.includes('=') ? `${item.slice(0, item.indexOf('='))}=${MASK}` : item;
      if (item && typeof item === 'object' && 'value' in item) return { ...(item as object), value: MASK };
      return maskDeep(item);
    });
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).map((k) => [k, MASK]));
  return v;
}

/** A copy of `value` with every secret value replaced by MASK (see the module comment). */
export function maskDeep(value: unknown, key?: string): unknown {
  if (key === 'environment' || key === 'env') return maskValues(value);
  if (key !== undefined && CONTENT_KEYS.has(key) && (typeof value === 'string' || (value && typeof value === 'object'))) {
    return typeof value === 'string' ? MASK : maskValues(value);
  }
  if (Array.isArray(value)) return value.map((v) => maskDeep(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, k)]));
  return value;
}

/** A rendered artifact (YAML or JSON, one or more documents) with its secret values masked; an
 *  artifact that does not parse is withheld whole rather than shown unmasked. */
export function maskArtifact(text: string): string {
  try {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return `${MASK} (not shown: could not be masked)`;
    return docs.map((d) => stringify(maskDeep(d.toJS()))).join('---\n');
  } catch {
    return `${MASK} (not shown: could not be masked)`;
  }
}

/** Whether this read may answer stored secret values: `reveal=true` needs an admin-scoped token. */
export function revealAllowed(auth: Auth, reveal: boolean): boolean {
  if (!reveal) return false;
  if (auth.scope !== 'admin') throw new DenvError('FORBIDDEN', `reveal: needs a token with scope admin (this one has ${auth.scope})`);
  return true;
}
