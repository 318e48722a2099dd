/**
 * Compose YAML to plain data, bounded so a hostile document cannot stall the event loop
 * (security issue 10 item 6: deeply nested YAML cost seconds). The caps are checked before the
 * parser runs (size, flow nesting) and on its result (nesting, aliases), so the worst case is a
 * linear scan of at most MAX_COMPOSE_BYTES plus one parse of a shallow document.
 *
 * YAML 1.2 core schema like Compose, with anchors, aliases and `<<` merge keys; duplicate keys
 * and several documents in one file are refused, as Compose refuses them. Where Compose's YAML
 * reading differs from plain YAML 1.2, this follows Compose: `0440` is octal, numbers in
 * `environment`/`labels`/`build.args` keep their text, and the `!reset`/`!override` merge tags
 * are understood.
 */
import { isAlias, isMap as isYamlMap, isNode, isScalar, isSeq, parseAllDocuments, type Document, type ScalarTag, type YAMLMap } from 'yaml';

export const MAX_COMPOSE_BYTES = 1024 * 1024;
export const MAX_COMPOSE_DEPTH = 64;
/** yaml's measure of alias expansion (its default is 100); a bomb of nested aliases exceeds it. */
export const MAX_ALIAS_COUNT = 1000;

/**
 * `0440` is octal (288), as Compose reads it (its YAML library parses integers like Go, where a
 * leading 0 means octal) and as every `mode: 0440` in Compose files means it. YAML 1.2 alone
 * would read 440.
 */
const LEGACY_OCTAL: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  format: 'OCT',
  test: /^0[0-7]+$/,
  resolve: (text) => parseInt(text, 8),
};

export interface ParsedYaml {
  readonly value: unknown;
  readonly warnings: readonly string[];
  /** Key paths tagged `!reset`: removed from `value`; a merge must drop what it inherited there too. */
  readonly resets: readonly (readonly string[])[];
  /** Key paths tagged `!override`: kept in `value`; a merge must replace, not merge, there. */
  readonly overrides: readonly (readonly string[])[];
}

const RESET = '!reset';
const OVERRIDE = '!override';

/** Mappings whose values are strings to Compose, whatever they look like. */
const STRING_MAPS = new Set(['environment', 'labels', 'annotations', 'args']);

/**
 * A number written as a value of `environment`, `labels`, `annotations` or `build.args` keeps the
 * text it was written with, as Compose reads these values: `PYTHON_VERSION: 3.10` is "3.10", not
 * the number 3.1. Values reached through an alias or a `<<` merge key are converted at their anchor.
 */
function keepNumberText(map: YAMLMap, doc: Document, text: string): void {
  const seen = new Set<unknown>();
  const pending: unknown[] = [map];
  while (pending.length > 0) {
    let node = pending.pop();
    if (isAlias(node)) node = node.resolve(doc);
    if (!isYamlMap(node) || seen.has(node)) continue;
    seen.add(node);
    for (const pair of node.items) {
      let value: unknown = pair.value;
      if (isAlias(value)) value = value.resolve(doc);
      if (isScalar(pair.key) && pair.key.value === '<<') pending.push(value);
      else if (isScalar(value) && typeof value.value === 'number' && value.range) value.value = text.slice(value.range[0], value.range[1]);
    }
  }
}

/**
 * Prepares the parsed document before it becomes plain data:
 *  - Compose's merge tags (merge.md): `!reset` removes a key (and what a merge would inherit
 *    there), `!override` replaces instead of merging. The `!reset` pairs are taken out of the
 *    document and both kinds of path are recorded for the merges (extends, include of several files);
 *  - numbers in string mappings keep their text (keepNumberText).
 */
function prepareDocument(doc: Document, text: string): { resets: string[][]; overrides: string[][] } {
  const resets: string[][] = [];
  const overrides: string[][] = [];
  const stack: Array<[unknown, string[]]> = [[doc.contents, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (isAlias(node) && STRING_MAPS.has(path[path.length - 1] ?? '')) {
      const target = node.resolve(doc);
      if (isYamlMap(target)) keepNumberText(target, doc, text);
    } else if (isYamlMap(node)) {
      if (STRING_MAPS.has(path[path.length - 1] ?? '')) keepNumberText(node, doc, text);
      node.items = node.items.filter((pair) => {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const value = pair.value;
        const at = [...path, key];
        if (isNode(value) && value.tag === RESET) {
          resets.push(at);
          return false;
        }
        if (isNode(value) && value.tag === OVERRIDE) {
          overrides.push(at);
          value.tag = undefined;
        }
        stack.push([value, at]);
        return true;
      });
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push([item, [...path, String(i)]]));
    }
  }
  return { resets, overrides };
}

/** Thrown for a document the loader will not read; `message` names the reason (and line where known). */
export class YamlSourceError extends Error {}

/**
 * An upper bound of the nesting of flow collections: `[`/`{` open, `]`/`}` close, wherever they
 * stand (quotes and comments included). Never an under-estimate, so a document that passes cannot
 * make the parser recurse deeper; a real Compose file does not hold 64 unclosed brackets in its
 * strings. Block nesting costs indentation and so is bounded by the size cap.
 */
export function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return max;
}

/** Deepest nesting of arrays/objects in a parsed value, counted without recursion. */
export function valueDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * Parse one Compose document. Throws YamlSourceError for a document over the caps, with a syntax
 * error, or with more than one document; yaml's warnings (e.g. an unknown tag) are returned.
 */
export function parseComposeYaml(text: string): ParsedYaml {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_COMPOSE_BYTES) throw new YamlSourceError(`too large: ${bytes} bytes (at most ${MAX_COMPOSE_BYTES})`);
  if (flowDepth(text) > MAX_COMPOSE_DEPTH) throw new YamlSourceError(`nested deeper than ${MAX_COMPOSE_DEPTH} levels`);
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: true, prettyErrors: true, customTags: (tags) => [LEGACY_OCTAL, ...tags] });
  if (!Array.isArray(docs)) return { value: null, warnings: [], resets: [], overrides: [] }; // an empty stream
  if (docs.length > 1) throw new YamlSourceError('holds several YAML documents; a Compose file is one');
  const doc = docs[0];
  if (!doc) return { value: null, warnings: [], resets: [], overrides: [] };
  const error = doc.errors[0];
  if (error) throw new YamlSourceError(`not valid YAML: ${firstLine(error.message)}`);
  const { resets, overrides } = prepareDocument(doc, text);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new YamlSourceError(`not valid YAML: ${firstLine((err as Error).message)}`);
  }
  if (valueDepth(value, MAX_COMPOSE_DEPTH) > MAX_COMPOSE_DEPTH) throw new YamlSourceError(`nested deeper than ${MAX_COMPOSE_DEPTH} levels`);
  const warnings = doc.warnings.map((w) => firstLine(w.message)).filter((w) => !/^Unresolved tag: !(reset|override)\b/.test(w));
  return { value, warnings, resets, overrides };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim().replace(/:$/, '');
}
