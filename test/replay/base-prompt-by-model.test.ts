import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { Simulation } from '../../src/replay/simulation.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { assistant, transcript, user } from '../helpers/transcript-kit.js';

const OPUS = 'claude-opus-4-5-20251101';
const HAIKU = 'claude-haiku-4-5-20251001';
const usage = (input: number, written: number, read: number) => ({
  input_tokens: input,
  cache_creation_input_tokens: written,
  cache_read_input_tokens: read,
  output_tokens: 20,
});
const at = (s: number) => new Date(Date.UTC(2026, 0, 22, 21, 0, s)).toISOString();

/**
 * A session whose command ran on Haiku (a slash command's `model: haiku`, as session-share's 0ccf1a04 did): Claude Code
 * sends Haiku a shorter system prompt than Opus, so its first call's input is smaller than Opus's prompt at that point.
 */
const SESSION = transcript(
  [
    { ...user('write a poem about curry'), timestamp: at(0) },
    assistant('Here is a poem about curry.', { model: OPUS, usage: usage(9, 20_000, 0), timestamp: at(5) }),
    { ...user('/publish-session'), timestamp: at(10) },
    assistant('Published.', { model: HAIKU, usage: usage(5, 18_100, 0), timestamp: at(15) }),
    { ...user('thanks'), timestamp: at(20) },
    assistant('You are welcome.', { model: OPUS, usage: usage(9, 60, 20_000), timestamp: at(25) }),
  ] as Message[],
  { metadata: { source: { format: 'claude-code', file: 'x.jsonl' } } },
);

describe('--base-prompt recorded: each model its own base', () => {
  it("bills a model's first call at its recorded input, not the first model's base plus the messages", async () => {
    const simulation = new Simulation({ policies: [], tokenizer: getTokenizer('o200k_base'), basePrompt: 'recorded' });
    const { prompts } = await simulation.replayTranscript(SESSION, { file: 'x.jsonl', line: 1 });
    const [first, haiku] = prompts.none;
    expect(first).toBe(20_009);
    expect(haiku).toBe(18_105);
  });
});
