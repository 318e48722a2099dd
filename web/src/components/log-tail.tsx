/**
 * A live log tail: the last lines of each workload, then new ones as the services print them
 * (`GET /v1/envs/{env}/logs/stream`). Keeps at most `MAX_LINES` in the page; follows the bottom
 * unless the reader scrolled up.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStream } from '../hooks.js';
import type { LogLine } from '../types.js';

const MAX_LINES = 500;

export function LogTail({ env }: { env: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  useStream(`/v1/envs/${encodeURIComponent(env)}/logs/stream?lines=100`, (m) => {
    if (m.event === 'line') {
      const line = JSON.parse(m.data) as LogLine;
      setLines((prev) => {
        const next = prev.length >= MAX_LINES ? prev.slice(prev.length - MAX_LINES + 1) : prev.slice();
        next.push(line);
        return next;
      });
      setNotice(null);
    } else if (m.event === 'notice') setNotice((JSON.parse(m.data) as { message: string }).message);
  });
  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  const services = new Set(lines.map((l) => l.service));
  return (
    <div>
      {notice ? <p class="muted small">{notice}</p> : null}
      <pre
        class="log-tail"
        ref={box}
        data-testid="log-tail"
        onScroll={(e) => {
          const el = e.currentTarget as HTMLPreElement;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {lines.length === 0 ? <span class="muted">No lines yet.</span> : null}
        {lines.map((l) => (
          <div key={`${l.version}/${l.service}/${l.offset}`} class="log-line">
            {services.size > 1 ? <span class="log-service">{l.service} </span> : null}
            {l.text}
          </div>
        ))}
      </pre>
    </div>
  );
}
