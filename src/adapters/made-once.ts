import type { Message } from '../model/message.js';

/**
 * What an adapter made for a message of the manager's own (an edited result, a summary), made once per message and per
 * what it was made from: the manager sends an edit again at every later call until the next one, as the same message
 * object, so converting it at each call would cost a conversion per call. It is made again when one of its sources (the
 * caller's earlier result it replaces, a tool name) is no longer the same.
 */
export class MadeOnce<T> {
  private readonly made = new WeakMap<Message, { from: readonly unknown[]; value: T }>();

  /** The value made for `m` from `from` (compared item by item, by identity), made with `make` when there is none. */
  of(m: Message, from: readonly unknown[], make: () => T): T {
    const known = this.made.get(m);
    if (known && known.from.length === from.length && known.from.every((f, i) => f === from[i])) return known.value;
    const value = make();
    this.made.set(m, { from, value });
    return value;
  }
}
