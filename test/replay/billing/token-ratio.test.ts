import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedTokenRatio, scaledTokenizer } from '../../../src/replay/billing/token-ratio.js';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { BUNDLED } from '../../helpers/paths.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The heuristic tokenizer counts ceil(chars / 4); every message adds 3 tokens of framing, which no ratio scales.
const tok = getTokenizer('heuristic');
const user = (chars: number): Message => ({ role: 'user', content: 'u'.repeat(chars) }) as Message;
const reply = (chars: number, recordedInput?: number): Message =>
  ({
    role: 'assistant',
    content: 'a'.repeat(chars),
    ...(recordedInput === undefined ? {} : { usage: { input_tokens: recordedInput, output_tokens: 1 } }),
  }) as Message;

describe('the provider tokens per token of ours, measured on the record', () => {
  it('divides the growth of the recorded input by the same messages counted here, computed by hand', () => {
    const t: Transcript = {
      id: 'hand',
      messages: [
        user(400), // before the first call: not measured (the base prompt holds it)
        reply(40, 5000), // call 1: the anchor
        user(400), // reply 1 (10 + 3) and this (100 + 3) come before call 2
        reply(40, 5160), // call 2: the record grew 160, of which 6 are framing: 154 provider tokens for 110 of ours
        user(800),
        reply(40, 5160 + 313), // call 3: 313 - 6 framing = 307 for 10 + 200 = 210 of ours
      ],
    };
    expect(recordedTokenRatio(t, tok)).toEqual({ ratio: (154 + 307) / (110 + 210), providerTokens: 154 + 307, ourTokens: 110 + 210 });
  });

  it('takes a reply split over records with one usage as one call, and starts again after a compaction', () => {
    const t: Transcript = {
      id: 'split',
      messages: [
        user(40),
        reply(40, 1000),
        reply(80, 1000), // the same response's second record: the same input, not a new call
        user(400),
        reply(40, 1000 + 150), // grew 150 - 9 framing = 141 over 10 + 20 + 100 = 130 of ours
        user(400),
        reply(40, 600), // the source compacted: the input shrank; nothing measured here
        user(40),
        reply(40, 600 + 30), // grew 30 - 6 = 24 over 10 + 10 = 20
      ],
    };
    expect(recordedTokenRatio(t, tok)).toEqual({ ratio: (141 + 24) / (130 + 20), providerTokens: 141 + 24, ourTokens: 130 + 20 });
  });

  it('is undefined without two recorded calls that grew', () => {
    expect(recordedTokenRatio({ id: 'none', messages: [user(40), reply(40)] }, tok)).toBeUndefined();
    expect(recordedTokenRatio({ id: 'one', messages: [user(40), reply(40, 900)] }, tok)).toBeUndefined();
  });

  it('scales every count and rounds it', () => {
    const scaled = scaledTokenizer(tok, 1.3);
    expect([scaled.name, scaled.count('x'.repeat(40)), scaled.count('x'.repeat(400)), scaled.count('')]).toEqual(['heuristic', 13, 130, 0]);
  });
});

interface TranscriptJson {
  tokenRatio?: number;
  basePrompt: number;
  recorded: { firstCallInput: number; input: number };
  policies: { none: { firstPrompt: number; billedInput: number }; source: { billedInput: number } };
}

describe('tcompact simulate --token-ratio on the bundled Claude Code sessions', { timeout: 120_000 }, () => {
  const run = async (ratio: string | undefined) => {
    const out = tempDir('sim-ratio');
    const args = ['simulate', join(BUNDLED, 'claude-code', 'subagent.jsonl'), '--policy', 'none', '--policy', 'source', '--base-prompt', 'recorded'];
    const r = await runMain([...args, ...(ratio === undefined ? [] : ['--token-ratio', ratio]), '--out', out]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { tokenRatio?: unknown; perTranscript: TranscriptJson[] };
    return { json, md: readFileSync(join(out, 'simulate.md'), 'utf8') };
  };

  it("recorded: the replay counts in the provider's tokens, so what the session did bills about what it recorded", async () => {
    const plain = await run(undefined);
    const scaled = await run('recorded');
    expect(plain.json.tokenRatio).toBeUndefined();
    expect(scaled.json.tokenRatio).toBe('recorded');
    const [p] = plain.json.perTranscript;
    const [s] = scaled.json.perTranscript;
    expect(p.tokenRatio).toBeUndefined();
    // Claude counts more tokens than o200k_base on this session's text.
    expect(s.tokenRatio).toBeGreaterThan(1.1);
    expect(s.tokenRatio).toBeLessThan(1.6);
    // The first prompt still equals the first recorded call's input: the base prompt is what the scaled count leaves.
    expect(s.policies.none.firstPrompt).toBe(s.recorded.firstCallInput);
    const gap = (t: TranscriptJson) => Math.abs(t.policies.source.billedInput / t.recorded.input - 1);
    expect(gap(s)).toBeLessThan(0.02);
    expect(gap(s)).toBeLessThan(gap(p));
    expect(scaled.md).toContain('| simulated `source` |');
  });

  it('a number scales every transcript alike; 0 and words are refused with an exact message', async () => {
    const doubled = await run('2');
    expect(doubled.json.tokenRatio).toBe(2);
    expect(doubled.json.perTranscript[0].tokenRatio).toBe(2);
    for (const bad of ['0', 'many']) {
      const out = tempDir('sim-ratio');
      const r = await runMain(['simulate', join(BUNDLED, 'claude-code', 'subagent.jsonl'), '--token-ratio', bad, '--out', out]);
      expect([r.code, r.stderr.trim()]).toEqual([2, `tcompact simulate: E_USAGE: --token-ratio must be a number > 0, got "${bad}"`]);
    }
  });
});
