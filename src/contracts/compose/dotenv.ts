/**
 * Compose's dotenv format, for `.env` and `env_file` (Compose specification, `env_file` format):
 *
 *   - blank lines and lines starting with `#` are skipped; `export ` before a name is allowed;
 *   - `NAME=value` (or `NAME: value`); `NAME` alone takes the value from the environment, and is
 *     left out when the environment has none;
 *   - unquoted values are trimmed and end at ` #` (an inline comment); interpolated;
 *   - `'single quoted'` values are literal (no escapes, no interpolation), may span lines;
 *   - `"double quoted"` values take `\n`, `\r`, `\t`, `\\`, `\"`, `\$` escapes, are interpolated,
 *     may span lines;
 *   - interpolation (`${VAR}`, `${VAR:-d}` …, see interpolate.ts) sees the names defined earlier
 *     in the same file first, then `lookup`.
 *
 * `format: raw` (env_file long form) reads `NAME=value` lines literally: no quotes, no interpolation.
 *
 * Values come out in escaped form (interpolate.ts): a literal `$` is `$$`, and `DENV_` references
 * are kept as written for the host to fill in.
 */
import { escapeDollars, interpolate, InterpolationError, type Lookup } from './interpolate.js';

export interface DotenvResult {
  /** Name → escaped-form value, in file order. */
  readonly values: Map<string, string>;
  /** Variables referenced but not set (each became `""`). */
  readonly missing: readonly string[];
  /** `line N: message` for each line that could not be read. */
  readonly errors: readonly string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"', $: '$$' };

export function parseDotenv(text: string, lookup: Lookup, format: 'compose' | 'raw' = 'compose'): DotenvResult {
  const values = new Map<string, string>();
  const missing: string[] = [];
  const errors: string[] = [];
  const own: Lookup = (name) => values.get(name) ?? lookup(name);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const sep = body.search(/[=:]/);
    const name = (sep < 0 ? body : body.slice(0, sep)).trim();
    if (!NAME.test(name)) {
      errors.push(`line ${lineNo}: ${JSON.stringify(name)} is not a variable name`);
      continue;
    }
    if (sep < 0) {
      const v = lookup(name);
      if (v !== undefined) values.set(name, v);
      continue;
    }
    let rest = body.slice(sep + 1).replace(/^[ \t]+/, '');
    if (format === 'raw') {
      values.set(name, escapeDollars(rest));
      continue;
    }
    const quote = rest[0];
    try {
      if (quote === "'" || quote === '"') {
        // A quoted value may go on over the following lines until its closing quote.
        let close = findClosingQuote(rest, quote);
        while (close < 0 && i + 1 < lines.length) {
          rest += `\n${lines[++i]!}`;
          close = findClosingQuote(rest, quote);
        }
        if (close < 0) throw new InterpolationError(`missing closing ${quote}`);
        const inner = rest.slice(1, close);
        if (quote === "'") values.set(name, escapeDollars(inner));
        else values.set(name, expandDouble(inner, own, missing));
      } else {
        const comment = rest.search(/[ \t]#/);
        const raw = (comment < 0 ? rest : rest.slice(0, comment)).trim();
        const r = interpolate(raw, own);
        missing.push(...r.missing);
        values.set(name, r.value);
      }
    } catch (err) {
      errors.push(`line ${lineNo}: ${(err as Error).message}`);
    }
  }
  return { values, missing, errors };
}

function findClosingQuote(text: string, quote: string): number {
  for (let k = 1; k < text.length; k++) {
    if (quote === '"' && text[k] === '\\') k++;
    else if (text[k] === quote) return k;
  }
  return -1;
}

/** Escapes first (an escaped `\$` becomes a literal `$$`), then interpolation of what is left. */
function expandDouble(inner: string, lookup: Lookup, missing: string[]): string {
  let out = '';
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    const r = interpolate(pending, lookup);
    missing.push(...r.missing);
    out += r.value;
    pending = '';
  };
  for (let k = 0; k < inner.length; k++) {
    const c = inner[k]!;
    if (c === '\\' && k + 1 < inner.length) {
      const e = ESCAPES[inner[k + 1]!];
      if (e !== undefined) {
        flush();
        out += e === '$$' ? '$$' : escapeDollars(e);
        k++;
        continue;
      }
    }
    pending += c;
  }
  flush();
  return out;
}
