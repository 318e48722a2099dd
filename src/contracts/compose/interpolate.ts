/**
 * Variable interpolation as the Compose specification defines it (interpolation.md):
 * `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`, `${VAR?err}`,
 * `${VAR:+alt}`, `${VAR+alt}`, defaults nested (up to 32 levels), and `$$` for a literal `$`.
 * Applied to values only, never to mapping keys (the spec says so; list syntax such as
 * `- "$KEY=value"` is how a key gets interpolated).
 *
 * denv's rule on top: a name starting with `DENV_` is not interpolated at load. The reference
 * is left exactly as written (`${DENV_DB_PORT}`, `${DENV_X:-1}`) and the host fills it in when the
 * service starts (`resolveAtStart`).
 *
 * The loader works in *escaped form*: a literal `$` is written `$$` and a `DENV_` reference stays
 * a reference. So the loaded model reads exactly as Compose text that means the same, and loading
 * it again changes nothing (the CLI sends the model to the server, which loads it again).
 * Lookups therefore return escaped-form values (see `escapedLookup`).
 */

/** A variable's value in escaped form (`$` written `$$`), or undefined when it is not set. */
export type Lookup = (name: string) => string | undefined;

export class InterpolationError extends Error {}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const BRACED = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/;

export function isDenvName(name: string): boolean {
  return name.startsWith('DENV_');
}

/** `$` → `$$`: a literal string in escaped form. */
export function escapeDollars(text: string): string {
  return text.replaceAll('$', () => '$$');
}

/** `$$` → `$`: an escaped-form string as a person reads it (messages only). */
export function unescapeDollars(text: string): string {
  return text.replaceAll('$$', () => '$');
}

/** A lookup over literal values (process environment), answering in escaped form. */
export function escapedLookup(env: Readonly<Record<string, string | undefined>>): Lookup {
  return (name) => {
    const v = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
    return v === undefined ? undefined : escapeDollars(v);
  };
}

/** Nesting of `${…:-${…}}` allowed; bounds the work on a hostile value (each level rescans its text). */
export const MAX_INTERPOLATION_DEPTH = 32;

interface Mode {
  /** Load: keep `DENV_` references and write the result in escaped form. Start: resolve everything to literal text. */
  readonly atLoad: boolean;
  readonly lookup: Lookup;
  readonly missing: string[];
}

/**
 * Interpolate one string at load. Returns the escaped-form result and the names that were not
 * set (each became `""`, like Compose, which warns); throws InterpolationError for a malformed
 * reference or a `:?`/`?` variable that is missing.
 */
export function interpolate(text: string, lookup: Lookup): { value: string; missing: string[] } {
  const mode: Mode = { atLoad: true, lookup, missing: [] };
  return { value: expand(text, mode), missing: mode.missing };
}

/**
 * On the host, when a service starts: resolve the `DENV_` references a loaded value kept and turn
 * `$$` into `$`. `denv` answers the host's variables (literal values); an unknown name becomes `""`.
 */
export function resolveAtStart(text: string, denv: (name: string) => string | undefined): string {
  return expand(text, { atLoad: false, lookup: denv, missing: [] });
}

function expand(s: string, mode: Mode, depth = 0): string {
  if (depth > MAX_INTERPOLATION_DEPTH) throw new InterpolationError(`interpolation nested deeper than ${MAX_INTERPOLATION_DEPTH} levels`);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '$') {
      out += c;
      continue;
    }
    const n = s[i + 1];
    if (n === '$') {
      out += mode.atLoad ? '$$' : '$';
      i++;
    } else if (n === '{') {
      const close = findClose(s, i + 2);
      if (close < 0) throw invalid(s);
      out += braced(s.slice(i + 2, close), s.slice(i, close + 1), s, mode, depth);
      i = close;
    } else if (n !== undefined && NAME_START.test(n)) {
      let j = i + 1;
      while (j < s.length && NAME_CHAR.test(s[j]!)) j++;
      const name = s.slice(i + 1, j);
      out += mode.atLoad && isDenvName(name) ? `$${name}` : valueOf(name, mode);
      i = j - 1;
    } else {
      throw invalid(s);
    }
  }
  return out;
}

/** Index of the `}` closing a `${` whose body starts at `from`, counting nested `${…}`; -1 if none. */
function findClose(s: string, from: number): number {
  let depth = 0;
  for (let k = from; k < s.length; k++) {
    const c = s[k];
    if (c === '$' && s[k + 1] === '$') k++;
    else if (c === '$' && s[k + 1] === '{') {
      depth++;
      k++;
    } else if (c === '}') {
      if (depth === 0) return k;
      depth--;
    }
  }
  return -1;
}

function braced(inner: string, raw: string, whole: string, mode: Mode, depth: number): string {
  const m = BRACED.exec(inner);
  if (!m) throw invalid(whole);
  const [, name = '', op, arg = ''] = m;
  if (mode.atLoad && isDenvName(name)) return raw;
  const v = mode.lookup(name);
  const unset = v === undefined;
  const empty = unset || v === '';
  const expandArg = (): string => expand(arg, mode, depth + 1);
  switch (op) {
    case undefined:
      return valueOf(name, mode);
    case ':-':
      return empty ? expandArg() : v;
    case '-':
      return unset ? expandArg() : v;
    case ':?':
      if (empty) throw required(name, expandArg(), mode);
      return v;
    case '?':
      if (unset) throw required(name, expandArg(), mode);
      return v;
    case ':+':
      return empty ? '' : expandArg();
    case '+':
      return unset ? '' : expandArg();
    default:
      throw invalid(whole);
  }
}

function valueOf(name: string, mode: Mode): string {
  const v = mode.lookup(name);
  if (v !== undefined) return v;
  mode.missing.push(name);
  return '';
}

function required(name: string, message: string, mode: Mode): InterpolationError {
  const text = mode.atLoad ? unescapeDollars(message) : message;
  return new InterpolationError(`required variable ${name} is missing a value${text ? `: ${text}` : ''}`);
}

function invalid(text: string): InterpolationError {
  return new InterpolationError(`invalid interpolation format in ${JSON.stringify(text)}: write a literal $ as $$`);
}
