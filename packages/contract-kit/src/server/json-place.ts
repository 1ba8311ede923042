/**
 * Where a walk over a JSON text is: at each depth, an array's index or an object's key (and
 * whether a key comes next), and the keys that object has had. Its path (`body.tags.2`) is
 * built only when a problem names it.
 */
export class Place {
  depth = 0;
  readonly inObject: boolean[] = [false];
  readonly keys: string[] = [''];
  readonly indexes: number[] = [0];
  readonly keyNext: boolean[] = [false];
  readonly seen: (Set<string> | undefined)[] = [undefined];

  /** `body`, then the key or index at each depth down to `depth`. */
  field(depth = this.depth): string {
    let field = 'body';
    for (let d = 1; d <= depth; d++) field += this.inObject[d] ? `.${this.keys[d]}` : `.${this.indexes[d]}`;
    return field;
  }

  open(object: boolean): void {
    const d = ++this.depth;
    this.inObject[d] = object;
    this.keyNext[d] = object;
    this.keys[d] = '';
    this.indexes[d] = 0;
    if (!object) return;
    // One Set of keys per depth, emptied for each object opened there.
    const seen = this.seen[d];
    if (!seen) this.seen[d] = new Set();
    else if (seen.size > 0) seen.clear();
  }

  close(): void {
    if (this.depth > 0) this.depth--;
  }

  next(): void {
    if (this.inObject[this.depth]) this.keyNext[this.depth] = true;
    else this.indexes[this.depth]!++;
  }

  /** Takes `key` as the current object's next key; false when that object already had it. */
  key(key: string): boolean {
    const d = this.depth;
    this.keys[d] = key;
    this.keyNext[d] = false;
    const seen = this.seen[d]!;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }
}
