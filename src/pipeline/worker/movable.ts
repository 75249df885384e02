import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Piscina's protocol for a result whose buffers move to the main thread: registered symbols, the same in every copy. */
const TRANSFERABLE = Symbol.for('Piscina.transferable');
const VALUE = Symbol.for('Piscina.valueOf');

type Mark = (value: object) => void;

let mark: Mark | undefined;

/**
 * What `Piscina.move` does to a transferable: it marks it with a symbol private to piscina's `dist/common.js`, the module
 * piscina's own worker loaded and checks results with. Taken from that module (already loaded in a pool thread, so it
 * costs nothing) rather than from `import('piscina')`, which loads the whole pool (its main.js and index.js: about
 * 25 ms of CPU in every thread) for that one function. Should a piscina release move it, the public `move` is used.
 */
async function marker(): Promise<Mark> {
  if (mark) return mark;
  const require = createRequire(import.meta.url);
  try {
    const common = require(join(dirname(require.resolve('piscina')), 'common.js')) as { markMovable?: unknown };
    if (typeof common.markMovable === 'function') return (mark = common.markMovable as Mark);
  } catch {
    // The layout changed: the public API below.
  }
  const { move } = await import('piscina');
  return (mark = (value) => void move(value as never));
}

/** `value` with the buffers in `buffers` moved, not copied, to the main thread when a piscina worker returns it. */
export async function movable<T>(value: T, buffers: ArrayBuffer[]): Promise<T> {
  const wrapped = { [TRANSFERABLE]: buffers, [VALUE]: value };
  (await marker())(wrapped);
  return wrapped as unknown as T;
}
