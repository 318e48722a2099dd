/**
 * The web UI in a real browser (Debian's Chromium, headless) against a real control plane and a
 * real agent: sign-in with `#token=`, the deployment page following a deploy live to `succeeded`,
 * the env page with the app's log lines and CPU/memory charts, a broken deploy's failed phase,
 * error and rollback, stop with confirmation, the hosts page, a narrow screen, a pending deployment
 * saying what it waits for. Screenshots of each
 * page go to `test-output/ui/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/api.js';
import { launchBrowser, outputDir, type Browser } from './helpers/browser.js';
import { commit, git } from './helpers/git-repos.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const compose = (environment: Record<string, string> = {}) => ({
  services: { web: { command: ['node', APP], environment, 'x-denv': { health: { path: '/healthz', timeout: '10s' } } } },
});
const SHOTS = outputDir('ui');

describe('web UI', () => {
  let h: Harness;
  let b: Browser;
  let envId = '';
  let appUrl = '';

  beforeAll(async () => {
    [h, b] = await Promise.all([startHarness({ cp: { liveStatusMs: 300, metricsMs: 500, allowFileRepos: true } }), launchBrowser()]);
    await h.api.post('/v1/projects', { name: 'shop' });
  });
  afterAll(async () => {
    await b?.close();
    await h?.close();
  });

  const shot = (name: string) => b.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const status = (testid: string) => b.page.getAttribute(`[data-testid="${testid}"]`, 'data-status');

  it('signs in from #token= in the address and removes it', async () => {
    const { page } = b;
    await page.goto(`${h.cp.url}/hosts#token=${h.cp.adminToken}`);
    await page.waitForSelector('[data-testid="host-test-host"]');
    expect(page.url()).toBe(`${h.cp.url}/hosts`);
    const row = await page.textContent('[data-testid="host-test-host"]');
    expect(row).toContain('connected');
    // Where it came from (an agent started by hand: a sidecar) and the address its services answer on.
    expect(row).toContain('sidecar');
    expect(row).toContain('127.0.0.1');
    // Its CPUs and memory, as the agent reported them.
    expect(row).toContain(`${availableParallelism()} / `);
    await shot('hosts');
    expect(await page.evaluate(() => localStorage.getItem('denv.token'))).toBe(h.cp.adminToken);
  });

  it('follows a deploy on its deployment page: phases turn ok one by one, without reloading, to succeeded', async () => {
    const { page } = b;
    // A slow start keeps the deploy in `prepare` long enough to watch it.
    const res = await h.api.post('/v1/projects/shop/deploy', { env: 'production', compose: compose({ VERSION: 'v1', STARTUP_DELAY_MS: '1500' }) });
    envId = res.body.env.id;
    await page.goto(`${h.cp.url}/deployments/${res.body.deployment.id}`);
    await page.waitForSelector('[data-testid="phases"]');
    // Record every rendering of the phase list, and mark this document: a reload would lose both.
    await page.evaluate(() => {
      const w = window as unknown as { seen: string[]; marker: number };
      w.seen = [];
      w.marker = 42;
      const list = document.querySelector('[data-testid="phases"]')!;
      const record = () => {
        const s = [...list.querySelectorAll('[data-testid^="phase-"][data-status]')].map((el) => `${el.getAttribute('data-testid')!.slice(6)}=${el.getAttribute('data-status')}`).join(' ');
        if (w.seen[w.seen.length - 1] !== s) w.seen.push(s);
      };
      record();
      new MutationObserver(record).observe(list, { subtree: true, attributes: true, childList: true });
    });
    await page.waitForSelector('[data-testid="deployment-status"][data-status="succeeded"]', { timeout: 60_000 });
    const { seen, marker } = await page.evaluate(() => window as unknown as { seen: string[]; marker: number }).then(() => page.evaluate(() => ({ seen: (window as any).seen as string[], marker: (window as any).marker as number })));
    expect(marker).toBe(42); // the same document throughout: updates came over the stream
    const okCounts = seen.map((s) => s.split(' ').filter((p) => p.endsWith('=ok')).length);
    for (let i = 1; i < okCounts.length; i++) expect(okCounts[i]!).toBeGreaterThanOrEqual(okCounts[i - 1]!);
    expect(new Set(okCounts).size, seen.join('\n')).toBeGreaterThanOrEqual(3); // several steps, not all at once
    expect(seen.some((s) => s.includes('prepare=running')), seen.join('\n')).toBe(true);
    const final = seen[seen.length - 1]!;
    for (const phase of ['resolve', 'place', 'prepare', 'start', 'health', 'snapshot', 'verdict']) expect(final).toContain(`${phase}=ok`);
    expect(await page.textContent('[data-testid="deployment-verdict"]')).toContain('Succeeded');
    await shot('deployment-succeeded');
  });

  it('shows the env page with the log lines the app printed and CPU/memory charts with points', async () => {
    const { page } = b;
    appUrl = (await h.api.get(`/v1/envs/${envId}`)).body.endpoints[0].url;
    await page.goto(`${h.cp.url}/`);
    await page.click('[data-testid="env-row-production"] a');
    await page.waitForSelector('[data-testid="env-status"][data-status="running"]');
    expect(page.url()).toBe(`${h.cp.url}/envs/${envId}`);
    await fetch(`${appUrl}/print?n=5`, { method: 'POST' });
    await page.waitForFunction(() => document.querySelector('[data-testid="log-tail"]')?.textContent?.includes('line 5 of 5'), undefined, { timeout: 20_000 });
    expect(await page.textContent('[data-testid="log-tail"]')).toContain('listening on');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="chart-memory-web"] circle.point').length >= 2 && document.querySelectorAll('[data-testid="chart-cpu-web"] circle.point').length >= 2, undefined, { timeout: 30_000 });
    expect(await page.textContent('[data-testid="workload-web"]')).toContain('1/1');
    expect(await page.textContent('[data-testid="uptime"]')).toContain('100%');
    await shot('env');

    // Readable on a phone: nothing wider than the screen (wide tables scroll inside their box).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => window.innerWidth === 390 && document.documentElement.clientWidth <= 390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('env-narrow');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows a broken deploy: the failed phase, its error, and the rollback', async () => {
    const { page } = b;
    const res = await h.api.post('/v1/projects/shop/deploy', { env: 'production', compose: compose({ VERSION: 'v2', MODE: 'crash' }) });
    await page.goto(`${h.cp.url}/deployments/${res.body.deployment.id}`);
    await page.waitForSelector('[data-testid="deployment-status"][data-status="rolled_back"]', { timeout: 60_000 });
    const failed = await page.$$eval('[data-testid^="phase-"][data-status="failed"]', (els) => els.map((e) => e.getAttribute('data-testid')!.slice(6)));
    // The app exits at once: `start` fails, and the page shows that phase's own error.
    expect(failed).toEqual(['start']);
    const dep = (await h.api.get(`/v1/deployments/${res.body.deployment.id}`)).body as { error: string; phases: { name: string; evidence: { error?: string } | null }[] };
    const startError = dep.phases.find((p) => p.name === 'start')!.evidence!.error!;
    expect(startError).toMatch(/exited with code 1/);
    expect((await page.textContent('[data-testid="phase-error-start"]'))!.trim()).toBe(startError);
    expect(await page.textContent('[data-testid="deployment-error"]')).toContain(dep.error);
    expect(dep.error).toBe(`start: ${startError}`);
    expect(await page.textContent('[data-testid="deployment-verdict"]')).toMatch(/Rolled back to version ver_/);
    await shot('deployment-rolled-back');
    // The env keeps serving the first version.
    expect(await (await fetch(appUrl)).text()).toMatch(/^v1 /);
  });

  it('stops the env after confirmation and shows it reach stopped', async () => {
    const { page } = b;
    await page.goto(`${h.cp.url}/envs/${envId}`);
    await page.waitForSelector('[data-testid="env-status"][data-status="running"]');
    await page.click('[data-testid="action-stop"]');
    await page.waitForSelector('[data-testid="confirm-dialog"][open]');
    expect(await page.textContent('[data-testid="confirm-dialog"]')).toContain('data are kept');
    await shot('env-confirm-stop');
    // Cancelling sends nothing: the one stop request the page makes is the confirmed one (counted below).
    const actions: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === 'POST' && r.url().includes(`/v1/envs/${envId}/`)) actions.push(new URL(r.url()).pathname);
    };
    page.on('request', onRequest);
    await page.click('[data-testid="dialog-cancel"]');
    await page.waitForSelector('[data-testid="confirm-dialog"][open]', { state: 'detached' });
    expect((await h.api.get(`/v1/envs/${envId}`)).body.status).toBe('running');
    await page.click('[data-testid="action-stop"]');
    await page.click('[data-testid="dialog-confirm"]');
    await page.waitForSelector('[data-testid="env-status"][data-status="stopped"]', { timeout: 30_000 });
    page.off('request', onRequest);
    expect(actions).toEqual([`/v1/envs/${envId}/stop`]);
    expect((await h.api.get(`/v1/events?subject=env:${envId}&limit=1000`)).body.items.filter((e: { type: string }) => e.type === 'stop_requested')).toHaveLength(1);
    expect(await page.textContent('[data-testid="action-outcome"]')).toContain('stop');
    expect(await status('env-status')).toBe('stopped');
    await page.waitForSelector('[data-testid="action-start"]');
    await shot('env-stopped');
    await page.goto(`${h.cp.url}/`);
    await page.waitForSelector('[data-testid="env-row-production"]');
    expect(await page.textContent('[data-testid="env-row-production"]')).toContain('stopped');
    await shot('overview');
    await waitFor(async () => (await h.api.get(`/v1/envs/${envId}`)).body.status === 'stopped', 5000, 'stopped in the API');
  });

  it('shows what a source deploy\'s build prints while it runs, and all of it when the finished deployment is opened again', async () => {
    const { page } = b;
    const root = mkdtempSync(path.join(tmpdir(), 'denv-ui-build-'));
    const work = path.join(root, 'work');
    await git(root, 'init', '-q', '-b', 'main', work);
    // Eight lines, 400 ms apart: the first is on the page long before the last is printed.
    const build = ['node', '-e', "let i = 0; const t = setInterval(() => { console.log('building step ' + ++i); if (i === 8) clearInterval(t); }, 400)"];
    await commit(work, { 'compose.yaml': JSON.stringify({ services: { web: { command: ['node', APP], 'x-denv': { build, health: { path: '/healthz', timeout: '10s' } } } } }) }, 'one');
    expect((await h.api.post('/v1/projects', { name: 'built', repo: `file://${work}`, branch: 'main' })).status).toBe(201);
    const res = await h.api.post('/v1/projects/built/deploy', { env: 'production', source: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await page.goto(`${h.cp.url}/deployments/${res.body.deployment.id}`);
    await page.waitForFunction(() => document.querySelector('[data-testid="build-output"]')?.textContent?.includes('web | building step 1'), undefined, { timeout: 60_000 });
    expect(await page.textContent('[data-testid="build-output"]')).not.toContain('building step 8'); // live, not at the end
    await page.waitForSelector('[data-testid="deployment-status"][data-status="succeeded"]', { timeout: 60_000 });
    await page.reload();
    await page.waitForSelector('[data-testid="build-output"]');
    const lines = (await page.textContent('[data-testid="build-output"]'))!.split('\n');
    expect(lines).toEqual(Array.from({ length: 8 }, (_, i) => `web | building step ${i + 1}`));
    await shot('deployment-build-output');
    rmSync(root, { recursive: true, force: true });
  });
  it("a pending deployment's page and the lists say what it waits for, and the note goes once it runs (over the stream)", async () => {
    const { page } = b;
    expect((await h.api.post('/v1/projects', { name: 'gated', approval: 'required' })).status).toBe(201);
    const res = await h.api.post('/v1/projects/gated/deploy', { env: 'review', compose: compose() });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await waitFor(async () => (await h.api.get(`/v1/envs/${res.body.env.id}`)).body.status === 'awaiting_approval', 30_000, 'awaiting approval');
    await page.goto(`${h.cp.url}/deployments/${res.body.deployment.id}`);
    await page.waitForSelector('[data-testid="deployment-waiting"]');
    expect(await page.textContent('[data-testid="deployment-waiting"]')).toBe("Waiting for approval of env gated/review's plan (denv env approve gated/review)");
    await shot('deployment-waiting');
    // The lists say it too: the overview's latest deployments and the env's deployments.
    const id = res.body.deployment.id as string;
    const waiting = "approval of env gated/review's plan (denv env approve gated/review)";
    await page.goto(`${h.cp.url}/`);
    expect(await (await page.waitForSelector(`[data-testid="deployment-waiting-${id}"]`)).textContent()).toBe(`waiting for ${waiting}`);
    await page.goto(`${h.cp.url}/envs/${res.body.env.id}`);
    expect(await (await page.waitForSelector(`[data-testid="env-deployment-note-${id}"]`)).textContent()).toBe(waiting);
    await page.goto(`${h.cp.url}/deployments/${id}`);
    await page.waitForSelector('[data-testid="deployment-waiting"]');
    expect((await h.api.post(`/v1/envs/${res.body.env.id}/approve`, {})).status).toBe(202);
    await page.waitForSelector('[data-testid="deployment-status"][data-status="succeeded"]', { timeout: 60_000 });
    expect(await page.$('[data-testid="deployment-waiting"]')).toBeNull();
    await page.goto(`${h.cp.url}/envs/${res.body.env.id}`);
    expect(await (await page.waitForSelector(`[data-testid="env-deployment-note-${id}"]`)).textContent()).toBe('');
    await page.goto(`${h.cp.url}/`);
    await page.waitForSelector(`a[href="/deployments/${id}"]`);
    expect(await page.$(`[data-testid="deployment-waiting-${id}"]`)).toBeNull();
  });
});
