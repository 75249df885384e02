import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { movable } from '../../src/pipeline/worker/movable.js';

const require = createRequire(import.meta.url);
/** The module piscina's worker checks each result with (dist/worker.js: `isMovable(result)`, then its transfer list). */
const common = require(join(dirname(require.resolve('piscina')), 'common.js')) as { isMovable(value: unknown): boolean };

describe("a shard's output handed to piscina", () => {
  it('is what piscina moves: its buffer goes in the transfer list, the value is the outcome', async () => {
    const body = new Uint8Array([1, 2, 3]);
    const outcome = { ok: true, value: { body } };
    const result = (await movable(outcome, [body.buffer])) as unknown as Record<symbol, unknown>;
    expect(common.isMovable(result)).toBe(true);
    expect(result[Symbol.for('Piscina.transferable')]).toEqual([body.buffer]);
    expect(result[Symbol.for('Piscina.valueOf')]).toBe(outcome);
  });
});
