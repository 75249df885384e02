import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import type { Message } from '../../src/model/message.js';
import { callThread, isModelCall } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { Simulation } from '../../src/replay/simulation.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { READ, collect, transcriptsOf } from './helpers.js';

/** Two Claude Code processes going on from the same reply of one session file, their calls alternating (see SOURCE.md). */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'two-processes-fork.jsonl');

const bare = (m: Message): Message => {
  const { thread: _t, branch_point: _p, branch_from: _f, ...rest } = m as Record<string, unknown>;
  return rest as Message;
};

async function replayed(transcript: Transcript): Promise<{ prompts: number[]; billed: number }> {
  const simulation = new Simulation({ policies: [], tokenizer: getTokenizer('o200k_base') });
  const { prompts, result } = await simulation.replayTranscript(transcript, { file: FILE, line: 1 });
  return { prompts: prompts.none, billed: result.policies.none.billedInput };
}

describe('Claude Code: two processes forking one session file', () => {
  let transcript: Transcript;
  beforeAll(async () => {
    [{ transcript }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
  });

  it('marks the second branch as a thread of its own, from the reply both go on from', () => {
    const m = transcript.messages;
    expect(m.map(callThread)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1]);
    expect(m[3].branch_point).toBe(0);
    expect(m[7]).toMatchObject({ role: 'user', content: 'add a test for the renaming', branch_from: 0 });
    // The calls in file order, each with its branch: after the shared start, the two branches' calls alternate.
    expect(m.flatMap((x, i) => (isModelCall(x) ? [[i, callThread(x)]] : []))).toEqual([
      [1, 0],
      [3, 0],
      [5, 0],
      [8, 1],
      [10, 0],
      [11, 1],
    ]);
  });

  it('replays each branch over its own chain, the shared start billed once', async () => {
    const m = transcript.messages;
    const shared = m.slice(0, 4).map(bare);
    const onA = m
      .slice(4)
      .filter((x) => callThread(x) === 0)
      .map(bare);
    const onB = m
      .slice(4)
      .filter((x) => callThread(x) === 1)
      .map(bare);
    const a = await replayed({ ...transcript, messages: [...shared, ...onA] });
    const b = await replayed({ ...transcript, messages: [...shared, ...onB] });
    const forked = await replayed(transcript);
    // Calls in file order: the two shared, A's first, B's first, A's second, B's second.
    expect(forked.prompts).toEqual([a.prompts[0], a.prompts[1], a.prompts[2], b.prompts[2], a.prompts[3], b.prompts[3]]);
    expect(forked.billed).toBe(a.billed + b.billed - a.prompts[0] - a.prompts[1]);
  });
});
