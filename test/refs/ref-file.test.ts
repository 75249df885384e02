import { describe, expect, it } from 'vitest';
import { locatorLine, parseRefLine } from '../../src/refs/ref-file.js';
import { locatorRef, refOf } from '../../src/refs/ref-store.js';

describe('ref file lines', () => {
  it("writes a locator's line as JSON.stringify writes its object, keys needing escapes in its path included", () => {
    const layer = refOf('{"id":"t","messages":[]}');
    for (const path of [
      ['messages', 3, 'content'],
      ['messages', 0, 'content', 12],
      ['metadata', 'a"b\\c', 'é\n\u2028'],
    ]) {
      const ref = locatorRef(layer, path);
      const line = locatorLine(ref, layer, path);
      expect(line).toBe(`${JSON.stringify({ ref, at: layer, path })}\n`);
      expect(parseRefLine(line.slice(0, -1))).toEqual({ ref, at: layer, path });
    }
  });
});
