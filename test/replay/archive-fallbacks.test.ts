import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { ArchiveFallbacks } from '../../src/replay/archive-fallbacks.js';
import { ArchiveBasePrompts, basePromptGroup, measuredBasePrompt } from '../../src/replay/base-prompt.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { measureTokenScale, providerCounter } from '../../src/replay/billing/token-ratio.js';
import { median } from '../../src/replay/billing/quantile.js';
import { asSent } from '../../src/replay/sent-tool-output.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { BUNDLED } from '../helpers/paths.js';

const tokenizer = getTokenizer('heuristic');

async function items(): Promise<{ transcript: Transcript; format?: string }[]> {
  const out: { transcript: Transcript; format?: string }[] = [];
  for await (const item of readInputs([BUNDLED], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') out.push(item);
  return out;
}

describe("the archive's fallbacks, measured in one pass (datasets/bundled)", () => {
  it('give each group the median of its sessions’ base prompts as the replay measures them, those too short for a scale of their own at the archive’s', async () => {
    const all = await items();
    const fallbacks = new ArchiveFallbacks(tokenizer, { tokenRatio: 'recorded', basePrompt: 'recorded' });
    for (const item of all) fallbacks.add(item);
    const { tokenScaleFallback, basePromptFallback } = fallbacks.options();
    expect(tokenScaleFallback).toBeDefined();

    // The replay's own measure of each session, at its provider counter with the archive's scale given.
    const expected = new Map<string, number[]>();
    let own = 0;
    let atArchiveScale = 0;
    for (const item of all) {
      const transcript = asSent(item.transcript);
      const recorded = recordedUsage(transcript);
      if (!recorded) continue;
      const counter = providerCounter(transcript, tokenizer, { tokenRatio: 'recorded', tokenScaleFallback });
      const group = basePromptGroup(transcript, item.format);
      const base = measuredBasePrompt(transcript, recorded, counter.tokenizer).tokens;
      expected.set(group, [...(expected.get(group) ?? []), base]);
      if (measureTokenScale(transcript, tokenizer)) {
        own++;
        continue;
      }
      // Alone in its archive, each one's own measure, noted piece by piece and scaled after the pass, is the replay's.
      atArchiveScale++;
      const alone = new ArchiveBasePrompts(tokenizer, 'recorded');
      alone.add(item, { measure: undefined });
      expect(alone.medians(tokenScaleFallback)[group], transcript.id).toEqual({ tokens: base, sessions: 1 });
    }
    // Both ways are taken: a scale of its own, and the archive's, known only after the pass.
    expect(own).toBeGreaterThan(0);
    expect(atArchiveScale).toBeGreaterThan(0);
    expect(basePromptFallback).toEqual(
      Object.fromEntries([...expected].map(([group, bases]) => [group, { tokens: Math.round(median(bases)), sessions: bases.length }])),
    );
  }, 120_000);
});
