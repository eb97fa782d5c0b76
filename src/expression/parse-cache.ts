/**
 * Parsed strings, bounded. Two generations approximate LRU without touching the map on a hit in
 * the young one (the hot path): a hit in the old generation is promoted, and when the young one
 * fills up it becomes the old one and the previous old one is dropped.
 */
export class ParseCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private parses = 0;
  private hits = 0;

  constructor(private readonly capacity: number) {}

  /** The value parsed earlier from `key`, if it is still held. */
  get(key: string): V | undefined {
    let value = this.young.get(key);
    if (value !== undefined) {
      this.hits++;
      return value;
    }
    value = this.old.get(key);
    if (value !== undefined) {
      this.hits++;
      this.store(key, value);
    }
    return value;
  }

  /** Stores what was just parsed from `key` (counted as one parse). */
  set(key: string, value: V): void {
    this.parses++;
    this.store(key, value);
  }

  private store(key: string, value: V): void {
    if (this.young.size >= this.capacity / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  stats(): ParseCacheStats {
    const size =
      this.young.size + [...this.old.keys()].filter((key) => !this.young.has(key)).length;
    return { parses: this.parses, hits: this.hits, size };
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.parses = 0;
    this.hits = 0;
  }
}

export interface ParseCacheStats {
  /** Strings classified and parsed so far (one per distinct string while it stays cached). */
  readonly parses: number;
  /** Evaluations that reused a parsed string. */
  readonly hits: number;
  /** Distinct strings held now. */
  readonly size: number;
}
