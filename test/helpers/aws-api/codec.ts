/**
 * The local AWS API server's wire helpers: its error type, the AWS Query protocol's form decoding
 * and XML encoding, and the small conversions the service modules share.
 */

/** An AWS error answer: HTTP status, the error code (`__type` / `<Code>`) and its message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
export const bad = (code: string, message: string) => new ApiError(400, code, message);

export const now = () => Date.now();
export const epochSeconds = (ms: number | null) => (ms === null ? undefined : ms / 1000);
export const hex = (n: number) => n.toString(16).padStart(17, '0');

/** `Filter.1.Value.1=x` → `{Filter: [{Value: ['x']}]}`; IAM's `.member.` is dropped. */
export function parseQueryForm(form: URLSearchParams): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of form) {
    if (key === 'Action' || key === 'Version') continue;
    const parts = key.split('.').filter((p) => p !== 'member');
    let node: any = root;
    parts.forEach((p, i) => {
      const k = /^\d+$/.test(p) ? Number(p) - 1 : p;
      if (i === parts.length - 1) node[k] = value;
      else node = node[k] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
    });
  }
  return root;
}

export type Xml = string | number | boolean | Date | null | undefined | Xml[] | { [k: string]: Xml };
export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
export function xml(tag: string, v: Xml, item: string): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return `<${tag}>${v.map((x) => xml(item, x, item)).join('')}</${tag}>`;
  if (v instanceof Date) return `<${tag}>${v.toISOString()}</${tag}>`;
  if (typeof v === 'object') return `<${tag}>${Object.entries(v).map(([k, x]) => xml(k, x, item)).join('')}</${tag}>`;
  return `<${tag}>${esc(String(v))}</${tag}>`;
}

export const list = <T>(v: unknown): T[] => (v === undefined ? [] : Array.isArray(v) ? (v as T[]) : [v as T]);

/** EC2 filters: each named filter must match one of its values; names outside `fields` are refused. */
export function matches(filters: unknown, fields: Record<string, readonly string[]>): boolean {
  for (const f of list<{ Name?: string; Value?: string[] }>(filters)) {
    const have = fields[f.Name ?? ''];
    if (!have) throw bad('InvalidParameterValue', `The filter '${f.Name}' is invalid`);
    if (!list<string>(f.Value).some((v) => have.includes(v))) return false;
  }
  return true;
}
