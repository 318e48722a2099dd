// The reader of bench/load.mjs, on a thread of its own: on 'start', GET workerData.url at
// workerData.rate requests a second, open loop (a request is sent on schedule whether or not the
// earlier ones answered); on 'stop', waits for the ones in flight and posts
// { lat: [ms, …], errors: [status or message, …], ms }.
import { parentPort, workerData } from 'node:worker_threads';
import { sleep } from './helpers.mjs';

const { url, headers, rate } = workerData;
let stopping = false;
parentPort.on('message', async (msg) => {
  if (msg === 'stop') {
    stopping = true;
    return;
  }
  stopping = false;
  const lat = [];
  const errors = [];
  const inflight = new Set();
  const t0 = performance.now();
  for (let i = 0; !stopping; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    if (stopping) break;
    const sent = performance.now();
    const p = fetch(url, { headers })
      .then(async (res) => {
        await res.arrayBuffer();
        if (!res.ok) errors.push(res.status);
        lat.push(performance.now() - sent);
      })
      .catch((err) => errors.push(err.message));
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  parentPort.postMessage({ lat, errors, ms: performance.now() - t0 });
});
