import { readFile, access } from 'node:fs/promises';
import { loadCompose } from './src/contracts/compose/load-compose.js';
const files = { readText: (p: string) => readFile(p, 'utf8'), exists: (p: string) => access(p).then(() => true, () => false) };
try {
  const r = await loadCompose({ file: process.argv[2]!, projectDir: process.argv[3]!, env: { HOME: '/root', TAG: '' }, files, profiles: process.argv.slice(4) });
  console.log(JSON.stringify(r, null, 1));
} catch (e) { console.log(String((e as Error).message)); }
