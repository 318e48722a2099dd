/**
 * `ports.json` is the host's one allocator, and it holds across processes: four processes
 * allocating 25 ports each, all at once, get 100 distinct ports (the compiled registry runs in
 * child processes; npm test builds first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'denv-ports-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DIST_PORTS = fileURLToPath(new URL('../../dist/agent/ports.js', import.meta.url));

function allocateIn(child: number): Promise<number[]> {
  const program = `import(${JSON.stringify(DIST_PORTS)}).then(async ({ PortRegistry }) => {
    const reg = new PortRegistry(${JSON.stringify(dir)}, { min: 26000, max: 26499 });
    const ports = await Promise.all(Array.from({ length: 25 }, (_, i) => reg.allocate('docker/p${child}/svc' + i)));
    console.log(JSON.stringify(ports));
  })`;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`allocator ${child} exited ${code}`))));
  });
}

describe('PortRegistry across processes', () => {
  it('gives 100 concurrent allocations from four processes 100 distinct ports', async () => {
    const ports = (await Promise.all([0, 1, 2, 3].map(allocateIn))).flat();
    expect(ports).toHaveLength(100);
    expect(new Set(ports).size).toBe(100);
    const table = JSON.parse(readFileSync(join(dir, 'ports.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(table).map(Number).sort()).toEqual([...ports].sort());
  });
});
