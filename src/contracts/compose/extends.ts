/**
 * `extends` (Compose specification, services.extends): a service merged on top of its base, from
 * the same file or from `file:` (read through FileAccess, its relative paths resolved against its
 * own directory), following chains, refusing cycles. Merge rules in merge.ts; `!reset` and
 * `!override` in the extending service are honoured.
 */
import path from 'node:path';
import { mergeTagsOf, labelOf, MAX_CHAIN, readDocument, readFileText, type Loader } from './document.js';
import type { FileContext } from './load-context.js';
import { applyMergeTags, mergeService } from './merge.js';
import { normalizeService } from './normalize-service.js';
import { isMap, joinPath } from './problems.js';
import { resolveHostPath } from './volumes.js';

type Json = Record<string, unknown>;

/** A service with its `extends` chain resolved and merged, in canonical form. */
export async function resolveService(loader: Loader, name: string, doc: Json, ctx: FileContext, chain: readonly string[]): Promise<Json | null> {
  const services = isMap(doc.services) ? doc.services : {};
  const raw = services[name];
  const at = `${ctx.prefix}${joinPath('services', name)}`;
  if (!isMap(raw)) return null;
  const key = `${ctx.dir}#${ctx.prefix}#${name}`;
  if (chain.includes(key)) {
    loader.problems.add(joinPath(at, 'extends'), `circular extends: ${[...chain, key].map((k) => k.split('#').pop()).join(' → ')}`);
    return null;
  }
  if (chain.length > MAX_CHAIN) {
    loader.problems.add(joinPath(at, 'extends'), `extends nested deeper than ${MAX_CHAIN}`);
    return null;
  }
  const { extends: ext, ...own } = raw;
  const main = await normalizeService(own, ctx, at);
  if (ext === undefined) return main;
  const target = typeof ext === 'string' ? { service: ext, file: undefined } : isMap(ext) ? { service: String(ext.service), file: typeof ext.file === 'string' ? ext.file : undefined } : null;
  if (!target) return main;
  let baseDoc = doc;
  let baseCtx = ctx;
  if (target.file !== undefined) {
    const abs = resolveHostPath(target.file, ctx) ?? target.file;
    const cacheKey = abs;
    let pending = loader.rawCache.get(cacheKey);
    const fileCtx: FileContext = { ...ctx, dir: path.dirname(abs), prefix: `${labelOf(loader, abs)}: ` };
    if (!pending) {
      pending = (async () => {
        const text = await readFileText(loader, abs, 'extends.file', joinPath(at, 'extends.file'));
        return text === null ? null : readDocument(text, fileCtx, labelOf(loader, abs));
      })();
      loader.rawCache.set(cacheKey, pending);
    }
    const other = await pending;
    if (!other) return main;
    baseDoc = other;
    baseCtx = fileCtx;
  }
  const baseServices = isMap(baseDoc.services) ? baseDoc.services : {};
  if (!isMap(baseServices[target.service])) {
    loader.problems.add(joinPath(at, 'extends'), `service "${target.service}" not found${target.file ? ` in ${target.file}` : ''}`);
    return main;
  }
  const base = await resolveService(loader, target.service, baseDoc, baseCtx, [...chain, key]);
  return base ? applyMergeTags(mergeService(base, main), main, mergeTagsOf.get(doc), ['services', name]) : main;
}
