// `npm run docs:lifecycle`: rewrite the Mermaid block of docs/lifecycle.md from the lifecycle table.
import { readFileSync, writeFileSync } from 'node:fs';
import { lifecycleMermaid } from './diagram.js';

const file = new URL('../../../docs/lifecycle.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
writeFileSync(file, doc.replace(/```mermaid[\s\S]*?```/, lifecycleMermaid()));
console.log('docs/lifecycle.md updated');
