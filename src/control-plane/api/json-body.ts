/**
 * The API's JSON body parser. Fastify's default parses any depth and lets NUL through to the
 * database (a 500); this one refuses, with 400 naming the path, a body nested deeper than
 * MAX_JSON_DEPTH (checked by a scan of the text before JSON.parse, so a 500k-deep body costs one
 * linear pass) and any string or key holding NUL. The body limit was checked before (per route).
 */
import type { FastifyInstance } from 'fastify';
import { DenvError } from '../../contracts/errors.js';

export const MAX_JSON_DEPTH = 64;

/** Depth of the deepest array/object in `text` (strings skipped), stopping past `max`. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/** The path of the first string or key holding NUL, or null. Depth is already bounded. */
export function nulPath(value: unknown, path = 'body'): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nulPath(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.${k.replace(/\u0000/g, '\\0')}`;
      const p = nulPath(v, `${path}.${k}`);
      if (p) return p;
    }
  }
  return null;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw new DenvError('BAD_REQUEST', `body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Only the position: V8's message quotes the input, which may hold a secret the caller sent.
    const at = /at position (\d+)/.exec((err as Error).message)?.[1];
    throw new DenvError('BAD_REQUEST', `body: not valid JSON${at === undefined ? '' : ` (at position ${at})`}`);
  }
  const nul = nulPath(value);
  if (nul) throw new DenvError('BAD_REQUEST', `${nul}: NUL characters are not allowed`);
  return value;
}

export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
