/**
 * Environment values never reach the LLM endpoint: a spec's `environment` holds passwords and API
 * keys as often as ports, and the endpoint is a third party's. The prompt shows each distinct value
 * as a token, `denv:value:<n>`, and the model is told to copy tokens exactly; once its manifests pass
 * validation, every string that is a token becomes its value again, so the stored plan (masked when
 * shown, api/mask.ts) and what the cluster runs carry the real values.
 *
 * Tokens are numbered in the order values are first sealed, so the same input gives the same prompt
 * (prompt.ts is deterministic). A string that holds a token without being exactly one (the model
 * quoted, split or joined values) cannot be restored faithfully: `unseal` names it as a problem, and
 * the planner shows the model its reply again with it (llm-planner.ts).
 */
export const TOKEN_PREFIX = 'denv:value:';
const TOKEN = /denv:value:\d+/;

export class SealedValues {
  private readonly tokens = new Map<string, string>();
  private readonly values = new Map<string, string>();

  /** The token standing for `value`: the same one each time. */
  seal(value: string): string {
    let token = this.tokens.get(value);
    if (token === undefined) {
      token = `${TOKEN_PREFIX}${this.tokens.size + 1}`;
      this.tokens.set(value, token);
      this.values.set(token, value);
    }
    return token;
  }

  /** `docs` with every string that is a token replaced by its value (new objects; `docs` is not
   *  changed), and the strings that hold a token without being exactly a known one. */
  unseal(docs: readonly unknown[]): { docs: unknown[]; problems: string[] } {
    const problems: string[] = [];
    const walk = (v: unknown, where: string): unknown => {
      if (typeof v === 'string') {
        const value = this.values.get(v);
        if (value !== undefined) return value;
        if (TOKEN.test(v)) problems.push(`${where}: "${v}" alters a value denv fills in: copy each ${TOKEN_PREFIX}N token exactly, as the whole value`);
        return v;
      }
      if (Array.isArray(v)) return v.map((x, i) => walk(x, `${where}[${i}]`));
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${where}.${k}`)]));
      return v;
    };
    const out = docs.map((d, i) => walk(d, `document ${i + 1} (${describe(d)})`));
    return { docs: out, problems };
  }
}

function describe(doc: unknown): string {
  const d = (doc ?? {}) as { kind?: unknown; metadata?: { name?: unknown } };
  return `${String(d.kind ?? '?')} ${String(d.metadata?.name ?? '?')}`;
}
