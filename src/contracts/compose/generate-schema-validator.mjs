#!/usr/bin/env node
// Regenerates compose-schema-validator.ts: the Compose schema's validator, compiled by ajv ahead of
// time (its "standalone" code), so a process does not compile it when it loads its first Compose
// file. Compiling the schema took ~300 ms of CPU in every process that loaded one (the control
// plane's Compose loader thread each time it starts, after 30 s without a deploy; every CLI run);
// loading the generated module takes ~12 ms.
//
// Usage: node src/contracts/compose/generate-schema-validator.mjs [--check]
//   (after `npm run build`: it reads the vendored schema from dist/)
// --check: exit 1 if the committed module differs from what this would write (schema.test.ts runs
// the same comparison, so an ajv upgrade or a new schema without regenerating fails the tests).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const out = fileURLToPath(new URL('./compose-schema-validator.ts', import.meta.url));
const { COMPOSE_SPEC_SCHEMA } = await import(new URL('../../../dist/contracts/compose/compose-spec-schema.js', import.meta.url).href);
const { validatorModule } = await import(new URL('../../../dist/contracts/compose/schema-validator-source.js', import.meta.url).href);
const text = validatorModule(COMPOSE_SPEC_SCHEMA);
if (process.argv.includes('--check')) {
  const same = readFileSync(out, 'utf8') === text;
  console.log(same ? 'compose-schema-validator.ts is current' : 'compose-schema-validator.ts is stale: run generate-schema-validator.mjs');
  process.exit(same ? 0 : 1);
}
writeFileSync(out, text);
console.log(`wrote ${out} (${text.length} bytes)`);
