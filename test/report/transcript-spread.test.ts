import { describe, expect, it } from 'vitest';
import { LARGEST_KEPT, addToSpread, emptySpread } from '../../src/report/transcript-spread.js';

const t = (id: string, tokensBefore: number, tokensAfter: number) => ({ id, file: 'a.jsonl', line: 1, tokensBefore, tokensAfter });

describe('transcript spread', () => {
  it('bins each transcript by the share of its tokens saved, 100% in the last bin and growth as 0%', () => {
    const s = emptySpread(1000);
    for (const x of [t('a', 100, 100), t('b', 100, 0), t('c', 100, 50), t('d', 100, 4), t('e', 100, 120), t('f', 0, 0)]) addToSpread(s, x);
    expect(s.compression[0]).toBe(3);
    expect(s.compression[10]).toBe(1);
    expect(s.compression[19]).toBe(2);
    expect(s.compression.reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('counts context-window tiers before and after at 80, 90 and 98% of the window', () => {
    const s = emptySpread(1000);
    for (const x of [t('a', 799, 100), t('b', 850, 850), t('c', 900, 500), t('d', 980, 979)]) addToSpread(s, x);
    expect(s.tiers.before).toEqual({ ok: 1, warning: 1, over_compaction_threshold: 1, over_hard_limit: 1 });
    expect(s.tiers.after).toEqual({ ok: 2, warning: 1, over_compaction_threshold: 1, over_hard_limit: 0 });
  });

  it('keeps the largest transcripts by tokens before, largest first, the earlier of equal sizes first', () => {
    const s = emptySpread(1000);
    for (let i = 0; i < 100; i++) addToSpread(s, t(`t${i}`, (i * 37) % 50, 0));
    expect(s.largest).toHaveLength(LARGEST_KEPT);
    const sizes = s.largest.map((x) => x.tokensBefore);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(sizes[0]).toBe(49);
    const ties = s.largest.filter((x) => x.tokensBefore === 49).map((x) => Number(x.id.slice(1)));
    expect(ties).toEqual([...ties].sort((a, b) => a - b));
  });
});
