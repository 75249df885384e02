import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveTokenScale, measureTokenScale, recordedTokenScale, scaledTokenizer, unloggedGrowth } from '../../../src/replay/billing/token-ratio.js';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { BUNDLED } from '../../helpers/paths.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The heuristic tokenizer counts ceil(chars / 4); every message adds 3 tokens of overhead, which no scale changes.
const tok = getTokenizer('heuristic');
const RATIO = 1.25;
const FRAMING = 20;
const user = (tokens: number, extra: Partial<Message> = {}): Message => ({ role: 'user', content: 'u'.repeat(tokens * 4), ...extra }) as Message;
const reply = (tokens: number, recordedInput?: number, extra: Record<string, unknown> = {}): Message =>
  ({
    role: 'assistant',
    content: 'a'.repeat(tokens * 4),
    ...(recordedInput === undefined ? {} : { usage: { input_tokens: recordedInput, output_tokens: 1 } }),
    ...extra,
  }) as Message;

/**
 * A session whose provider counts RATIO of its tokens per token of ours plus FRAMING per piece of text: each interval is
 * a reply of 8 tokens and a user turn of `sizes[i]` tokens (two pieces, 6 tokens of overhead). `extra(i)` adds
 * provider tokens the messages do not show to interval i, and `mark(i)` marks its user turn.
 */
function session(sizes: number[], extra: (i: number) => number = () => 0, mark: (i: number) => Partial<Message> = () => ({})): Transcript {
  const messages: Message[] = [user(100)];
  let input = 5000;
  messages.push(reply(8, input));
  sizes.forEach((size, i) => {
    messages.push(user(size, mark(i)));
    input += RATIO * (8 + size) + FRAMING * 2 + 6 + extra(i);
    messages.push(reply(8, input));
  });
  return { id: 'scaled', messages };
}
const SIZES = [12, 40, 100, 28, 300, 60, 20, 160];

describe("the provider's token scale, measured on the record", () => {
  it('finds the ratio and the framing per piece a session was counted with, computed by hand', () => {
    expect(measureTokenScale(session(SIZES), tok)).toEqual({ ratio: RATIO, framing: FRAMING, intervals: 8, skipped: 0, spread: [RATIO, RATIO] });
  });

  it('leaves out intervals with unlogged thinking, a tool search load, a compaction or growth far above the text', () => {
    const marked = session(
      [...SIZES, 50, 50, 50, 50],
      (i) => (i === 9 || i === 11 ? 20_000 : 0), // a tool search's definitions; a reminder the record does not mark
      (i) =>
        i === 8
          ? ({ thinking_blocks_without_text: 1 } as Partial<Message>)
          : i === 9
            ? ({ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '{"type":"tool_reference","tool_name":"Grep"}' }] } as Partial<Message>)
            : i === 10
              ? { is_compact_summary: true }
              : {},
    );
    expect(measureTokenScale(marked, tok)).toEqual({ ratio: RATIO, framing: FRAMING, intervals: 8, skipped: 4, spread: [RATIO, RATIO] });
  });

  it('a pooled ratio would take a tool search load in full; the fit does not move', () => {
    const loaded = session(SIZES, (i) => (i === 3 ? 20_000 : 0));
    expect(measureTokenScale(loaded, tok)).toMatchObject({ ratio: RATIO, framing: FRAMING, intervals: 7, skipped: 1 });
  });

  it('puts the growth the messages do not show where the record shows it: on the last message before the call', () => {
    // Interval 3 ends with user turn 3, message 2 + 2 x 3 = 8; interval 5's thinking mark grew nothing beyond the fit.
    const t = session(
      SIZES,
      (i) => (i === 3 ? 20_000 : 0),
      (i) => (i === 5 ? ({ thinking_blocks_without_text: 1 } as Partial<Message>) : {}),
    );
    expect(unloggedGrowth(t, tok, { ratio: RATIO, framing: FRAMING })).toEqual([{ at: 8, tokens: 20_000, from: 9 }]);
    expect(unloggedGrowth(session(SIZES), tok, { ratio: RATIO, framing: FRAMING })).toEqual([]);
  });

  it('is undefined with fewer than 5 clean intervals, and then the archive medians stand in', () => {
    const short = session([12, 40, 100, 28]);
    expect(measureTokenScale(short, tok)).toBeUndefined();
    const archive = new ArchiveTokenScale();
    archive.add({ ratio: 1.1, framing: 30, intervals: 9, skipped: 0, spread: [1, 1.2] });
    archive.add(undefined);
    archive.add({ ratio: 1.3, framing: 10, intervals: 9, skipped: 0, spread: [1, 1.2] });
    archive.add({ ratio: 1.2, framing: 50, intervals: 9, skipped: 0, spread: [1, 1.2] });
    const fallback = archive.median();
    expect(fallback).toEqual({ ratio: 1.2, framing: 30 });
    expect(recordedTokenScale(short, tok, fallback)).toEqual({ ratio: 1.2, framing: 30, intervals: 0, skipped: 4, spread: [1.2, 1.2], fellBack: true });
    expect(recordedTokenScale(short, tok, undefined)).toBeUndefined();
    expect(recordedTokenScale(session(SIZES), tok, fallback)).toMatchObject({ ratio: RATIO, framing: FRAMING, fellBack: false });
  });

  it('scales every non-empty piece of text, adds the framing, and rounds', () => {
    const scaled = scaledTokenizer(tok, 1.3, 5);
    expect([scaled.name, scaled.count('x'.repeat(40)), scaled.count('x'.repeat(400)), scaled.count('')]).toEqual(['heuristic', 18, 135, 0]);
    expect(scaledTokenizer(tok, 1.3).count('x'.repeat(40))).toBe(13);
  });
});

interface TranscriptJson {
  tokenRatio?: number;
  tokenScale?: { framing: number; intervals: number; skipped: number; spread: [number, number]; fellBack: boolean };
  basePrompt: number;
  recorded: { firstCallInput: number; input: number };
  policies: { none: { firstPrompt: number; billedInput: number }; source: { billedInput: number } };
  fidelity: { input: { recorded: number; replayed: number } };
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
    expect([p.tokenRatio, p.tokenScale]).toEqual([undefined, undefined]);
    // Claude counts more tokens than o200k_base on this session's text, and frames each piece of it.
    expect(s.tokenRatio).toBeGreaterThan(1.05);
    expect(s.tokenRatio).toBeLessThan(1.6);
    expect(s.tokenScale).toMatchObject({ intervals: 11, skipped: 0, fellBack: false });
    expect(s.tokenScale!.framing).toBeGreaterThan(5);
    expect(s.tokenScale!.spread[0]).toBeLessThanOrEqual(s.tokenRatio!);
    expect(s.tokenScale!.spread[1]).toBeGreaterThanOrEqual(s.tokenRatio!);
    // The first prompt still equals the first recorded call's input: the base prompt is what the scaled count leaves.
    expect(s.policies.none.firstPrompt).toBe(s.recorded.firstCallInput);
    // The record's calls against the record (the session's interrupted request is billed beside them, unrecorded).
    const gap = (t: TranscriptJson) => Math.abs(t.fidelity.input.replayed / t.fidelity.input.recorded - 1);
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
