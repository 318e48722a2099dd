/**
 * One-line summaries of phase evidence (and event data) for terminal output:
 * `endpoints=web→http://127.0.0.1:20001 took_ms=412 reason="first connected host"`.
 * Pure; the full JSON is always available with `--json`.
 */
import { truncate } from './output.js';

export interface SummaryLimits {
  /** Longest rendering of one value (quotes excluded). */
  readonly maxValue: number;
  /** Longest whole summary. */
  readonly maxTotal: number;
}

const DEFAULT_LIMITS: SummaryLimits = { maxValue: 48, maxTotal: 160 };

/**
 * `key=value …` for an evidence object; '' for null/empty; a bare value for a non-object.
 * Null and undefined fields are left out (they say "not applicable" and crowd the line), and an
 * `error` field comes first so it survives truncation.
 */
export function summarizeEvidence(evidence: unknown, limits: Partial<SummaryLimits> = {}): string {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  if (evidence === null || evidence === undefined) return '';
  if (!isPlainObject(evidence)) return truncate(formatValue(evidence, lim.maxValue), lim.maxTotal);
  const entries = Object.entries(evidence).filter(([, v]) => v !== undefined && v !== null);
  const ordered = [...entries.filter(([k]) => k === 'error'), ...entries.filter(([k]) => k !== 'error')];
  const parts = ordered.map(([k, v]) => `${k}=${formatValue(v, lim.maxValue)}`);
  return truncate(parts.join(' '), lim.maxTotal);
}

/** A value as it appears after `key=`. */
export function formatValue(value: unknown, maxValue: number = DEFAULT_LIMITS.maxValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return formatString(value, maxValue);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isEndpoint)) return truncate(value.map(formatEndpoint).join(','), maxValue);
    if (value.every(isBareScalar)) return truncate(value.map(String).join(','), maxValue);
    return truncate(compactJson(value), maxValue);
  }
  if (isEndpoint(value)) return truncate(formatEndpoint(value), maxValue);
  return truncate(compactJson(value), maxValue);
}

/** Bare when it reads unambiguously as one token; otherwise JSON-quoted (which also escapes newlines). */
function formatString(value: string, maxValue: number): string {
  const cut = truncate(value, maxValue);
  if (/^[^\s"'=\\]+$/.test(cut)) return cut;
  return JSON.stringify(cut);
}

interface EndpointLike {
  readonly service: string;
  readonly url: string;
}

function isEndpoint(value: unknown): value is EndpointLike {
  return isPlainObject(value) && typeof value.service === 'string' && typeof value.url === 'string';
}

function formatEndpoint(e: EndpointLike): string {
  return `${e.service}→${e.url}`;
}

/** Scalars that need no quoting inside a comma list. */
function isBareScalar(value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  return typeof value === 'string' && /^[^\s"'=,\\]+$/.test(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
