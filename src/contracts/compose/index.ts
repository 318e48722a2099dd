/**
 * Compose loading per the Compose specification (docs/compose.md). What other modules use:
 * `loadCompose` to get the canonical model, `FileAccess` to give it files, and the escaped-form
 * helpers for reading its values (`$$` is a literal `$`; `${DENV_*}` is filled in by the host at
 * start with `resolveAtStart`).
 */
export { loadCompose, type LoadComposeOptions, type LoadedCompose } from './load-compose.js';
export { confinedFileAccess, needsFiles, type FileAccess } from './file-access.js';
export { escapeDollars, isDenvName, resolveAtStart, unescapeDollars } from './interpolate.js';
export { MAX_ALIAS_COUNT, MAX_COMPOSE_BYTES, MAX_COMPOSE_DEPTH } from './yaml-source.js';
export type { PortConfig } from './ports.js';
export type { VolumeMount } from './volumes.js';
