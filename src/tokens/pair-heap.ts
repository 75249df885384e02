/**
 * A binary min-heap of (rank, offset) pairs packed into one float64 each (rank * 2^32 + offset, exact while the rank
 * stays below 2^21), so one comparison orders by rank and then by offset: the lowest rank first, the leftmost among
 * equals. Its storage is reused from one use to the next and doubles when full, so a push seldom allocates.
 */
export class PairHeap {
  private keys = new Float64Array(0);
  size = 0;

  /** Empties the heap and makes room for `capacity` pushes before it grows. */
  reset(capacity: number): void {
    if (this.keys.length < capacity) this.keys = new Float64Array(capacity);
    this.size = 0;
  }

  push(rank: number, offset: number): void {
    if (this.size === this.keys.length) {
      const grown = new Float64Array(Math.max(16, 2 * this.size));
      grown.set(this.keys);
      this.keys = grown;
    }
    const keys = this.keys;
    const key = rank * 0x100000000 + offset;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      i = parent;
    }
    keys[i] = key;
  }

  /** Removes the smallest pair and returns its key; read it with {@link rankOfKey} and {@link offsetOfKey}. */
  pop(): number {
    const keys = this.keys;
    const top = keys[0];
    const last = keys[--this.size];
    const n = this.size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[child + 1] < keys[child]) child++;
      if (keys[child] >= last) break;
      keys[i] = keys[child];
      i = child;
    }
    keys[i] = last;
    return top;
  }
}

export function rankOfKey(key: number): number {
  return Math.floor(key / 0x100000000);
}

export function offsetOfKey(key: number): number {
  return key % 0x100000000;
}
