/**
 * followDeployment when no control plane listens at all: it retries, then gives up with
 * UNREACHABLE. This needs no server, so it stays a unit test. Everything else about following a
 * deployment (the stream to its end, refusals, a stream dropped mid-deployment or before its first
 * event, abort, the printed progress) runs against the real control plane and a real agent in
 * test/cli.test.ts.
 */
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { followDeployment } from './watch.js';

/** A port that was free a moment ago and has nothing listening on it now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('followDeployment', () => {
  it('gives up with UNREACHABLE when nothing listens', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await expect(followDeployment(new ApiClient({ url, token: () => 't' }), 'dep_1', { giveUpAfterMs: 50, backoffMs: { first: 10, max: 20 } })).rejects.toMatchObject({
      code: 'UNREACHABLE',
      message: `cannot reach the control plane at ${url}: is \`denv dev\` or \`denv server\` running?`,
    });
  });
});
