/**
 * The control plane loads no AWS SDK module until an AWS account is used (aws-access.ts says why:
 * ~80 MiB of RSS and most of a second at every start, issue 11). Checked on the compiled modules
 * in a fresh Node process (npm test builds first): the SDK's packages are CommonJS, so whatever
 * loaded them is in `require.cache`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../../lib/exec.js';

const dist = (p: string) => fileURLToPath(new URL(`../../../../dist/${p}`, import.meta.url));

/** The @aws-sdk packages a fresh process has loaded after importing `module` and running `then`
 *  (a script body with the module as `m`). */
async function sdkPackagesAfterImporting(module: string, then = ''): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const m = await import(${JSON.stringify(module)});
    ${then}
    const pkgs = new Set(Object.keys(require.cache).map((f) => f.match(/node_modules\\/(@aws-sdk\\/[^/]+)/)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...pkgs].sort()));`;
  // A file, not `--input-type=module -e`: worker threads inherit the flags, and the embedded
  // database's worker refuses that one.
  const dir = mkdtempSync(join(tmpdir(), 'denv-lazy-sdk-script-'));
  try {
    writeFileSync(join(dir, 'probe.mjs'), script);
    const r = await run([process.execPath, join(dir, 'probe.mjs')]);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim()) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the AWS SDK is loaded on first use', () => {
  it('starting a control plane (its whole module graph, its sweeps, API reads) loads none of it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'denv-lazy-sdk-'));
    try {
      const started = `
        const cp = await m.startControlPlane({ port: 0, dataDir: ${JSON.stringify(dataDir)}, log: () => {} });
        for (const path of ['/healthz', '/v1/envs', '/v1/aws-accounts', '/metrics']) {
          const res = await fetch(cp.url + path, { headers: { authorization: 'Bearer ' + cp.adminToken } });
          if (res.status !== 200) throw new Error(path + ': ' + res.status);
        }
        await cp.close();`;
      expect(await sdkPackagesAfterImporting(dist('control-plane/control-plane.js'), started)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the ECS executor, which the first AWS call imports, loads its clients (so the check above can see them)', async () => {
    expect(await sdkPackagesAfterImporting(dist('control-plane/targets/ecs/ecs-target.js'))).toEqual(
      expect.arrayContaining(['@aws-sdk/client-ec2', '@aws-sdk/client-ecs', '@aws-sdk/client-iam', '@aws-sdk/client-secrets-manager']),
    );
  });
});
