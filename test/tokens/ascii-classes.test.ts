import { describe, expect, it } from 'vitest';
import { classOf } from '../../src/tokens/code-point-classes.js';
import { ASCII_CLASSES } from '../../src/tokens/o200k-split.js';

describe("the o200k splitter's written-out ASCII classes", () => {
  it('are the classes classOf gives each ASCII code point', () => {
    expect([...ASCII_CLASSES]).toEqual(Array.from({ length: 0x80 }, (_, c) => classOf(c)));
  });
});
