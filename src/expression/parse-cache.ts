/**
 * Parsed strings, bounded by count and by the characters they hold. Two generations
 * approximate LRU without touching the map on a hit in the young one (the hot path): a hit in
 * the old generation is promoted, and when the young one fills up it becomes the old one and
 * the previous old one is dropped. Strings longer than `maxKeyLength` are never kept: they are
 * almost always data that happens to start with `$`, and caching them would let whoever sends
 * data fill the process's memory.
 */
export class ParseCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private youngChars = 0;
  private oldChars = 0;
  private parses = 0;
  private hits = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxChars: number = Infinity,
    readonly maxKeyLength: number = Infinity,
  ) {}

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

  /** Stores what was just parsed from `key` (counted as one parse; too long a key is not kept). */
  set(key: string, value: V): void {
    this.parses++;
    if (key.length <= this.maxKeyLength) this.store(key, value);
  }

  private store(key: string, value: V): void {
    if (this.young.size >= this.capacity / 2 || this.youngChars + key.length > this.maxChars / 2) {
      this.old = this.young;
      this.oldChars = this.youngChars;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(key, value);
    this.youngChars += key.length;
  }

  stats(): ParseCacheStats {
    const size =
      this.young.size + [...this.old.keys()].filter((key) => !this.young.has(key)).length;
    return { parses: this.parses, hits: this.hits, size };
  }

  /** Characters of the strings held (both generations; a promoted string counts twice). */
  heldChars(): number {
    return this.youngChars + this.oldChars;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngChars = 0;
    this.oldChars = 0;
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
