/**
 * A small least-recently-used map. Permission checks ask about the same
 * command or rule many times in a row (deny, ask and allow lists, read-only
 * check, suggestions), so the analysis is kept rather than redone.
 */
export class BoundedCache<Key, Value> {
  private readonly entries = new Map<Key, Value>();

  constructor(private readonly capacity: number) {}

  /** The cached value, refreshed as most recently used. */
  get(key: Key): Value | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores a value, dropping the least recently used entry when full. */
  set(key: Key, value: Value): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }
}
