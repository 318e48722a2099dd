/**
 * Collecting every problem of a Compose document before reporting (issue 9: "exits non-zero
 * listing every problem"). Each problem names where it is: a dotted path into the document
 * (`services.web.ports.0`), prefixed with the file when it is not the main one
 * (`db.yaml: services.db.image`).
 */
import { DenvError } from '../errors.js';

export interface Problem {
  /** Dotted path into the document, `''` for the document itself. */
  readonly path: string;
  readonly message: string;
}

export class Problems {
  private readonly items: Problem[] = [];

  add(path: string, message: string): void {
    this.items.push({ path, message });
  }

  get count(): number {
    return this.items.length;
  }

  list(): readonly Problem[] {
    return this.items;
  }

  /** One line per problem, `path: message`, in the order found, duplicates dropped. */
  lines(): string[] {
    return [...new Set(this.items.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)))];
  }

  /** Throws `INVALID_COMPOSE` listing every problem, one per line, when there is any. */
  throwIfAny(): void {
    if (this.items.length === 0) return;
    const lines = this.lines();
    const head = lines.length === 1 ? 'invalid Compose file:' : `invalid Compose file (${lines.length} problems):`;
    throw new DenvError('INVALID_COMPOSE', `${head}\n${lines.map((l) => `  ${l}`).join('\n')}`);
  }
}

/** `base.key`, or `key` at the root. */
export function joinPath(base: string, key: string | number): string {
  return base === '' ? String(key) : `${base}.${key}`;
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
