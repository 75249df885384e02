import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { keepsEarlierThinking } from '../../src/provider/thinking-rules.js';
import { Simulation } from '../../src/replay/simulation.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { READ, collect, transcriptsOf } from '../formats/helpers.js';

/** A Sonnet 4.5 session with thinking in three replies over three user prompts (see test/fixtures/claude-code/SOURCE.md). */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'thinking-across-turns.jsonl');
const tokenizer = getTokenizer('o200k_base');

async function prompts(transcript: Transcript): Promise<number[]> {
  const simulation = new Simulation({ policies: [], tokenizer });
  return (await simulation.replayTranscript(transcript, { file: FILE, line: 1 })).prompts.none;
}

/** Tokens of a reply's thinking: the reply counted with it, less without it. */
function thinkingOf(m: Message): number {
  const { reasoning_content: _r, ...rest } = m as Record<string, unknown>;
  return totalOf(countMessage(m, tokenizer)) - totalOf(countMessage(rest as Message, tokenizer));
}

describe("earlier thinking, as the provider keeps it for the call's model", () => {
  it('follows the documented rule per model family', () => {
    const keeps = ['claude-opus-4-5-20251101', 'claude-opus-4-6', 'claude-sonnet-4-6', 'gpt-5', 'claude-haiku-5'];
    const strips = [
      'claude-opus-4-1-20250805',
      'claude-opus-4-20250514',
      'claude-sonnet-4-5-20250929',
      'claude-3-7-sonnet-20250219',
      'claude-haiku-4-5-20251001',
    ];
    expect(keeps.map(keepsEarlierThinking)).toEqual(keeps.map(() => true));
    expect(strips.map(keepsEarlierThinking)).toEqual(strips.map(() => false));
  });

  it("leaves the thinking of the turns before the last user prompt out of a Sonnet 4.5 call's prompt, and keeps it for Opus 4.5", async () => {
    const [{ transcript: read }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
    // The model's rule, where no client version decides it (see replay/client-thinking.ts).
    const transcript = { ...read, messages: read.messages.map(({ client_version: _v, ...m }) => m as Message) };
    const m = transcript.messages;
    const [r1, r3, r5] = [thinkingOf(m[1]), thinkingOf(m[3]), thinkingOf(m[5])];
    expect(Math.min(r1, r3, r5)).toBeGreaterThan(10);
    const opus = await prompts({ ...transcript, messages: m.map((x) => (x.role === 'assistant' ? { ...x, model: 'claude-opus-4-5-20251101' } : x)) });
    const sonnet = await prompts(transcript);
    // Calls: the first; after the second prompt (the first turn's thinking gone); after a tool result in the same turn
    // (this turn's thinking kept); after the third prompt (all earlier thinking gone).
    expect(sonnet).toEqual([opus[0], opus[1] - r1, opus[2] - r1, opus[3] - r1 - r3 - r5]);
  });
});
