/**
 * Orders records so that each comes after its parent, keeping file order wherever it already does (a stable
 * topological sort: among the records whose parent is placed, the earliest in the file goes first). Records whose
 * parent is not among them are roots. Records caught in a parent cycle keep their file order at the end.
 */
export function orderByParent<T>(
  items: readonly T[],
  idOf: (item: T) => string | undefined,
  parentOf: (item: T) => string | undefined,
): { items: T[]; moved: number } {
  const indexById = new Map<string, number>();
  items.forEach((item, i) => {
    const id = idOf(item);
    if (id !== undefined && !indexById.has(id)) indexById.set(id, i);
  });
  const parentIndex = items.map((item) => {
    const parent = parentOf(item);
    return parent === undefined ? undefined : indexById.get(parent);
  });
  const moved = parentIndex.filter((p, i) => p !== undefined && p > i).length;
  if (moved === 0) return { items: [...items], moved: 0 };

  const children = new Map<number, number[]>();
  const ready = new MinHeap();
  parentIndex.forEach((p, i) => {
    if (p === undefined || p === i) ready.push(i);
    else {
      let list = children.get(p);
      if (!list) children.set(p, (list = []));
      list.push(i);
    }
  });
  const order: number[] = [];
  const done = new Set<number>();
  while (ready.size > 0) {
    const i = ready.pop();
    order.push(i);
    done.add(i);
    for (const child of children.get(i) ?? []) ready.push(child);
  }
  for (let i = 0; i < items.length; i++) if (!done.has(i)) order.push(i);
  return { items: order.map((i) => items[i]), moved };
}

class MinHeap {
  private readonly heap: number[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(value: number): void {
    const h = this.heap;
    h.push(value);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent] <= h[i]) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  pop(): number {
    const h = this.heap;
    const top = h[0];
    const last = h.pop() as number;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < h.length && h[l] < h[min]) min = l;
        if (r < h.length && h[r] < h[min]) min = r;
        if (min === i) break;
        [h[min], h[i]] = [h[i], h[min]];
        i = min;
      }
    }
    return top;
  }
}
