/**
 * The control plane loads no AWS SDK module until an AWS account is used (aws-access.ts says why:
 * ~80 MiB of RSS and most of a second at every start, issue 11). Checked on the compiled modules
 * in a fresh Node process (npm test builds first): the SDK's packages are CommonJS, so whatever
 * loaded them is in `require.cache`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../../lib/exec.js';

const dist = (p: string) => fileURLToPath(new URL(`../../../../dist/${p}`, import.meta.url));

/** The @aws-sdk packages a fresh process has loaded after importing `module`. */
async function sdkPackagesAfterImporting(module: string): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    await import(${JSON.stringify(module)});
    const pkgs = new Set(Object.keys(require.cache).map((f) => f.match(/node_modules\\/(@aws-sdk\\/[^/]+)/)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...pkgs].sort()));`;
  const r = await run([process.execPath, '--input-type=module', '-e', script]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim()) as string[];
}

describe('the AWS SDK is loaded on first use', () => {
  it('starting a control plane (its whole module graph) loads none of it', async () => {
    expect(await sdkPackagesAfterImporting(dist('control-plane/control-plane.js'))).toEqual([]);
  });

  it('the ECS executor, which the first AWS call imports, loads its clients (so the check above can see them)', async () => {
    expect(await sdkPackagesAfterImporting(dist('control-plane/targets/ecs/ecs-target.js'))).toEqual(
      expect.arrayContaining(['@aws-sdk/client-ec2', '@aws-sdk/client-ecs', '@aws-sdk/client-iam', '@aws-sdk/client-secrets-manager']),
    );
  });
});
