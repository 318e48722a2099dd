/**
 * The edge relay's table (edge-relay.ts, relay-main.ts): one file per route in `<dir>/routes/`,
 * `{"listen": <port>, "target": <port>}`, written by rename so a reader sees the old or the new
 * content, never a torn one. The agent writes it; the relay process reads it on every new
 * connection (the target) and on SIGHUP (which listeners to hold).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../files.js';

export interface RelayRoute {
  /** The stable port the proxy dials, on 127.0.0.1. */
  readonly listen: number;
  /** The port of the version serving now, on 127.0.0.1. */
  readonly target: number;
}

export const routesDir = (dir: string) => path.join(dir, 'routes');
export const routeFile = (dir: string, id: string) => path.join(routesDir(dir), `${id}.json`);

const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) < 65536;

/** The route, or null when its file is missing or not a valid route. Synchronous: it runs per connection, on a tiny file. */
export function readRouteSync(dir: string, id: string): RelayRoute | null {
  try {
    const r = JSON.parse(readFileSync(routeFile(dir, id), 'utf8')) as Partial<RelayRoute>;
    return isPort(r.listen) && isPort(r.target) ? { listen: r.listen, target: r.target } : null;
  } catch {
    return null;
  }
}

/** Every route id in the table. */
export function listRoutesSync(dir: string): string[] {
  try {
    return readdirSync(routesDir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}

export async function writeRoute(dir: string, id: string, route: RelayRoute): Promise<void> {
  await writeJsonAtomic(routeFile(dir, id), route);
}
