/**
 * preflight ports: the slot keeps the host port it holds in ports.json, or the range still has a
 * free port it would get. Reads only — nothing is allocated.
 */
import { canBind, lowestFreePort } from '../../ports.js';
import { slotPortOwner } from '../../runtimes/docker/slot.js';
import { failed, ok, type Stage } from '../stage.js';

export const ports: Stage = {
  name: 'ports',
  onFailure: 'fail',
  async run({ host, req }) {
    const table = await host.ports.read();
    const held = Object.entries(table).find(([, owner]) => owner === slotPortOwner(req.slot));
    if (held) return ok(`keeps port ${held[0]}`, { port: Number(held[0]), held: true });
    const free = await lowestFreePort(host.ports.range, new Set(Object.keys(table).map(Number)), canBind);
    if (free === null) return failed(`no free port in ${host.ports.range.min}-${host.ports.range.max}`);
    return ok(`would get port ${free}`, { port: free, held: false });
  },
};
