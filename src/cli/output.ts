/**
 * Pure text formatting for the CLI: errors, tables, durations, ages, status symbols. Nothing here
 * writes; commands print what these return.
 */
import type { PhaseStatus } from '../contracts/domain.js';
import { CliError } from './cli-error.js';

/** `error (CODE): message`, plus the stack with --verbose (STYLE §8). */
export function formatError(err: unknown, verbose = false): string {
  const { code, message } = describeError(err);
  const line = `error (${code}): ${message}`;
  if (verbose && err instanceof Error && err.stack) return `${line}\n${err.stack}`;
  return line;
}

/**
 * The code and message of anything thrown. Our own errors (CliError, and DenvError, matched by
 * shape so a second copy of the contracts module still counts) keep their code; Node system
 * errors keep theirs (EADDRINUSE, EACCES …); anything else is INTERNAL.
 */
export function describeError(err: unknown): { code: string; message: string } {
  if (err instanceof CliError) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return { code, message: err.message };
    return { code: 'INTERNAL', message: err.message || err.name };
  }
  return { code: 'INTERNAL', message: String(err) };
}

export const STATUS_SYMBOLS = {
  ok: '✓',
  failed: '✗',
  skipped: '–',
  running: '…',
  pending: '·',
} as const satisfies Record<PhaseStatus, string>;

/** `text` cut to at most `max` characters, the cut marked with `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${text.slice(0, max - 1)}…`;
}

/** `412 ms`, `3.2 s`, `2m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalS = Math.floor(ms / 1000);
  if (totalS < 3600) return `${Math.floor(totalS / 60)}m${String(totalS % 60).padStart(2, '0')}s`;
  const totalM = Math.floor(totalS / 60);
  return `${Math.floor(totalM / 60)}h${String(totalM % 60).padStart(2, '0')}m`;
}

/** Milliseconds between two ISO timestamps, or null when either is missing or unreadable. */
export function elapsedMs(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : null;
}

/** How long ago `at` was, relative to `now`: `5s ago`, `3m ago`, `2h ago`, `4d ago`; `never` for null. */
export function formatAge(at: string | null | undefined, now: number): string {
  if (!at) return 'never';
  const ms = now - Date.parse(at);
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/**
 * A plain table: a header row, then rows, columns separated by two spaces and padded to the
 * widest cell (the last column is not padded, so lines carry no trailing blanks).
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    headers
      .map((_, i) => (i === headers.length - 1 ? (cells[i] ?? '') : (cells[i] ?? '').padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n');
}

/** `key:  value` lines for a single record, keys padded to the widest; an empty key continues the one above. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${(k ? `${k}:` : '').padEnd(width + 1)}  ${v}`).join('\n');
}

/** The JSON the `--json` flag prints: indented, one trailing newline added by the caller. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
