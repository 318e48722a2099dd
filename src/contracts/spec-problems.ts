/**
 * Collecting every problem of a Compose file before refusing it, so a user fixes them all in one
 * round (`denv config` and the API list each with its path).
 */
import { DenvError } from './errors.js';

export class Problems {
  private readonly list: string[] = [];

  add(path: string, message: string): void {
    this.list.push(path ? `${path}: ${message}` : message);
  }

  get count(): number {
    return this.list.length;
  }

  /** Run `fn`; a DenvError it throws becomes a problem (the first-error helpers stay usable). */
  catch<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof DenvError)) throw err;
      this.list.push(err.message);
      return undefined;
    }
  }

  /** INVALID_COMPOSE listing every problem, one per line. */
  throwIfAny(): void {
    if (this.list.length > 0) throw new DenvError('INVALID_COMPOSE', this.list.join('\n'));
  }
}

export { isMap } from './compose/problems.js';
