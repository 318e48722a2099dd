/**
 * Recognising recurring errors (seed 002 "Incidents"): an error line's *pattern* is the line with
 * what varies between occurrences normalised away — timestamps, UUIDs, hex strings, numbers — so
 * `error: order 1234 failed after 35 ms` and `error: order 99 failed after 7 ms` are one pattern.
 * Pure functions, unit-tested on their exact output.
 */
import { createHash } from 'node:crypto';

/** Lines that look like errors: a level word or the usual exception markers, as a word. */
const ERROR_LINE = /\b(error|errors|exception|fatal|panic|panicked|traceback|uncaught|unhandled|critical|segmentation fault)\b|\bERR\b|\bE[0-9]{4}\b/i;

/** Exception class names: TypeError, IOException, … */
const EXCEPTION_NAME = /[a-z](Error|Exception)\b/;

export function isErrorLine(text: string): boolean {
  return ERROR_LINE.test(text) || EXCEPTION_NAME.test(text);
}

/** Most specific first: a timestamp contains numbers, a UUID contains hex. */
const RULES: readonly (readonly [RegExp, string])[] = [
  // 2024-05-01T12:00:00.123Z, 2024-05-01 12:00:00,123+02:00
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b/g, '<ts>'],
  [/\b\d{4}-\d{2}-\d{2}\b/g, '<date>'],
  [/\b\d{1,2}:\d{2}:\d{2}([.,]\d+)?\b/g, '<time>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // hex runs of 8+ with at least one digit and one letter (ids, hashes), not plain words
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  // ids with a prefix and a long random tail: env_3f2a…, req-7d9c…
  [/\b([a-z]+[_-])[0-9a-z]{10,}\b/gi, '$1<id>'],
  [/\d+(\.\d+)?/g, '<n>'],
];

/** The pattern of a line: what varies replaced by `<ts>`, `<uuid>`, `<hex>`, `<id>`, `<n>`; spaces collapsed; at most 300 characters. */
export function normaliseLine(text: string): string {
  let out = text;
  for (const [re, to] of RULES) out = out.replace(re, to);
  return out.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** A short stable id of a service's pattern. */
export function fingerprintOf(service: string, pattern: string): string {
  return createHash('sha256').update(`${service}\n${pattern}`).digest('hex').slice(0, 16);
}
