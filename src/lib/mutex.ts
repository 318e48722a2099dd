/**
 * In-process mutual exclusion. `KeyedMutex` serialises work per key (the agent holds one per env
 * so that create, rollback, snapshot and destroy of one env never interleave, while different
 * envs proceed in parallel).
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Run `fn` once every earlier holder has finished; a holder's failure does not poison the queue. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once nobody queued behind us, so the map does not grow with every env ever seen.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
