import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../src/on-first-use.js';

describe('onFirstUse', () => {
  it('builds nothing until the first call, then builds once and hands back the same value', () => {
    let builds = 0;
    const value = onFirstUse(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });

  it('keeps a built undefined instead of building again', () => {
    let builds = 0;
    const value = onFirstUse(() => {
      builds++;
      return undefined;
    });
    value();
    value();
    expect(builds).toBe(1);
  });
});
