/**
 * The two read-only Engine API questions telemetry asks about an image service's container, over
 * the same unix socket as `runtimes/docker/engine-api.ts` (its `socketPath`): the inspect fields
 * that `ContainerState` leaves out (host pid, OOMKilled, FinishedAt, Tty), and the container's
 * recent log lines. Nothing is spawned (these run every few seconds per container) and nothing is
 * changed. Every answer is bounded: an inspect body is small, a logs body is cut at
 * `MAX_LOG_BODY_BYTES` and asks for at most `tail` lines.
 *
 * The parsers below (`demuxLogStream`, `parseTimestamped`, `containerExit`) are pure.
 */
import http from 'node:http';
import { LOG_LINE_MAX_CHARS } from '../../contracts/telemetry.js';

const MAX_LOG_BODY_BYTES = 2 * 1024 * 1024;
const TIMEOUT_MS = 5000;

/** What telemetry needs from `GET /containers/{id}/json`. */
export interface ContainerInspect {
  readonly id: string;
  /** The container's init process as this agent's /proc sees it; 0 when it is not running. */
  readonly pid: number;
  readonly status: string;
  readonly running: boolean;
  readonly restarting: boolean;
  readonly paused: boolean;
  /** Whether the kernel's OOM killer ended the container's last run (docker resets it on start). */
  readonly oomKilled: boolean;
  readonly exitCode: number;
  readonly startedAt: string | null;
  /** When the last run ended; null when it never ended. */
  readonly finishedAt: string | null;
  readonly restartCount: number;
  /** With a TTY the logs endpoint answers raw text, else docker's multiplexed stream. */
  readonly tty: boolean;
}

interface RawInspect {
  Id: string;
  RestartCount?: number;
  State: { Status: string; Running: boolean; Restarting: boolean; Paused?: boolean; OOMKilled?: boolean; Pid?: number; ExitCode: number; StartedAt?: string; FinishedAt?: string };
  Config?: { Tty?: boolean };
}

/** Docker's zero time ("never"). */
const isZeroTime = (t: string | undefined): boolean => !t || t.startsWith('0001-01-01');

function get(socketPath: string, urlPath: string, maxBytes: number): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: urlPath, method: 'GET', headers: { host: 'docker' }, timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size >= maxBytes) return;
        chunks.push(c);
        size += c.length;
        if (size >= maxBytes) res.destroy(); // what arrived so far is kept; the rest is dropped
      });
      const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, maxBytes) });
      res.on('end', done);
      res.on('close', done);
      res.on('error', () => done());
    });
    req.on('timeout', () => req.destroy(new Error(`docker engine did not answer ${urlPath} within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Inspect one container; null when it no longer exists. Throws when the engine does not answer. */
export async function inspectContainer(socketPath: string, id: string): Promise<ContainerInspect | null> {
  const res = await get(socketPath, `/containers/${encodeURIComponent(id)}/json`, 4 * 1024 * 1024);
  if (res.status === 404) return null;
  if (res.status !== 200) throw new Error(`docker engine answered ${res.status} to inspect ${id}`);
  const raw = JSON.parse(res.body.toString('utf8')) as RawInspect;
  return {
    id: raw.Id,
    pid: raw.State.Pid ?? 0,
    status: raw.State.Status,
    running: raw.State.Running,
    restarting: raw.State.Restarting,
    paused: raw.State.Paused ?? false,
    oomKilled: raw.State.OOMKilled ?? false,
    exitCode: raw.State.ExitCode,
    startedAt: isZeroTime(raw.State.StartedAt) ? null : raw.State.StartedAt!,
    finishedAt: isZeroTime(raw.State.FinishedAt) ? null : raw.State.FinishedAt!,
    restartCount: raw.RestartCount ?? 0,
    tty: raw.Config?.Tty ?? false,
  };
}

/**
 * How the container's last run ended, in live status's words (`OOMKilled`, `exit code N`), or null
 * when it has not ended. Docker keeps only the last run's exit: a container restarted since
 * (running again, `restartCount` > 0) no longer says how the previous run ended. Pure.
 */
export function containerExit(c: ContainerInspect): { reason: string; at: string | null } | null {
  if (c.running && !c.restarting) return c.restartCount > 0 ? { reason: 'restarted (docker keeps no earlier exit)', at: c.finishedAt } : null;
  if (c.finishedAt === null && !c.oomKilled) return null;
  return { reason: c.oomKilled ? 'OOMKilled' : `exit code ${c.exitCode}`, at: c.finishedAt };
}

/**
 * The text of a logs body: with a TTY it is the text itself; without, docker's stream of frames
 * (8-byte header: stream type, 3 zero bytes, big-endian payload size). A frame cut by the body
 * bound is dropped. Pure.
 */
export function demuxLogStream(body: Buffer, tty: boolean): string {
  if (tty) return body.toString('utf8');
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= body.length) {
    const size = body.readUInt32BE(at + 4);
    if (at + 8 + size > body.length) break;
    parts.push(body.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

export interface TimestampedLine {
  /** Microseconds since the epoch: the line's identity within its workload (`LogLine.offset`). */
  readonly micros: number;
  /** ISO time, millisecond precision. */
  readonly at: string;
  /** The line, cut at LOG_LINE_MAX_CHARS (marked with `…`). */
  readonly text: string;
}

/** One line of `logs?timestamps=1` (`2026-01-02T03:04:05.123456789Z text`); null when it has no timestamp. Pure. */
export function parseTimestamped(line: string): TimestampedLine | null {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z ?(.*)$/s.exec(line.replace(/\r$/, ''));
  if (!m) return null;
  const ms = Date.parse(`${m[1]}Z`);
  if (!Number.isFinite(ms)) return null;
  const frac = (m[2] ?? '').padEnd(9, '0');
  const text = m[3]!;
  return {
    micros: ms * 1000 + Number(frac.slice(0, 6)),
    at: new Date(ms + Number(frac.slice(0, 3))).toISOString(),
    text: text.length > LOG_LINE_MAX_CHARS ? `${text.slice(0, LOG_LINE_MAX_CHARS)}…` : text,
  };
}

/**
 * The container's lines (stdout and stderr) printed at or after `sinceSec` (unix seconds; 0: from
 * the start), at most the last `tail`, oldest first. Lines without a timestamp are skipped.
 */
export async function containerLogLines(socketPath: string, id: string, o: { tty: boolean; sinceSec: number; tail: number }): Promise<TimestampedLine[]> {
  const q = `stdout=1&stderr=1&timestamps=1&tail=${Math.max(1, Math.floor(o.tail))}${o.sinceSec > 0 ? `&since=${Math.floor(o.sinceSec)}` : ''}`;
  const res = await get(socketPath, `/containers/${encodeURIComponent(id)}/logs?${q}`, MAX_LOG_BODY_BYTES);
  if (res.status !== 200) return [];
  const out: TimestampedLine[] = [];
  for (const line of demuxLogStream(res.body, o.tty).split('\n')) {
    const parsed = line === '' ? null : parseTimestamped(line);
    if (parsed) out.push(parsed);
  }
  // stdout and stderr frames interleave in arrival order; the timestamps give the true order.
  return out.sort((a, b) => a.micros - b.micros);
}
