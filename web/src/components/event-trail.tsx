/** The env's append-only event trail (newest first), fetched incrementally with `after`. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';
import { ago } from '../format.js';
import type { DenvEvent, Page } from '../types.js';
import { Empty } from './ui.js';

const KEEP = 300;

export function EventTrail({ subject, now }: { subject: string; now: number }) {
  const [events, setEvents] = useState<DenvEvent[]>([]);
  const after = useRef(0);
  useEffect(() => {
    let live = true;
    after.current = 0;
    setEvents([]);
    const pull = async () => {
      for (;;) {
        const page = await get<Page<DenvEvent>>(`/v1/events?subject=${encodeURIComponent(subject)}&after=${after.current}&limit=500`);
        if (!live) return;
        if (page.items.length > 0) {
          after.current = page.items[page.items.length - 1]!.id;
          setEvents((prev) => [...prev, ...page.items].slice(-KEEP));
        }
        if (!page.next) return;
      }
    };
    void pull().catch(() => {});
    const t = setInterval(() => void pull().catch(() => {}), 3000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [subject]);
  if (events.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <ol class="events" data-testid="events">
      {[...events].reverse().map((e) => (
        <li key={e.id} class={`event event-${e.type.replace(/[^a-z_]/gi, '-')}`}>
          <span class="event-type">{e.type}</span>
          <span class="event-data mono">{summarise(e.data)}</span>
          <span class="muted small" title={e.at}>
            {ago(e.at, now)}
          </span>
        </li>
      ))}
    </ol>
  );
}

function summarise(data: Record<string, unknown>): string {
  const text = Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
