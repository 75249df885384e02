import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { readQwen } from '../../src/formats/qwen.js';
import { type AssistantMessage, isAssistant } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recordedPromptTokens, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { ReplayOptionsSchema } from '../../src/replay/replay-options.js';
import { replayTranscript } from '../../src/replay/transcript-replay.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, transcriptsOf } from './helpers.js';

// Chats written in Qwen Code's layout and record shapes (test/fixtures/qwen/README.md, generate.mjs).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'qwen');
const CHATS = join(HOME, 'projects', '-home-dev-projects-shop', 'chats');
const MAIN = join(CHATS, '5b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl');
const REWIND = join(CHATS, '8e2d4f6a-1b3c-4d5e-9f70-8a9b0c1d2e3f.jsonl');

/**
 * `QWEN_DATA_DIR=test/fixtures/qwen npx -y ccusage@20.0.24 qwen session --json --offline`, per session. ccusage's
 * `inputTokens` is Qwen's `promptTokenCount`, which already holds the cached tokens it also reports as
 * `cacheReadTokens` (so its `totalTokens` counts them twice), and its `outputTokens` leaves out the thoughts a
 * Gemini-shaped record counts apart from the candidates (`thoughtsTokenCount`, billed as output). It reads every
 * assistant line, the abandoned branch's too.
 */
const CCUSAGE = {
  [MAIN]: { inputTokens: 26134, cacheReadTokens: 20224, outputTokens: 1002, totalTokens: 47830 },
  [REWIND]: { inputTokens: 15756, cacheReadTokens: 11392, outputTokens: 240, totalTokens: 27538 },
};

async function read(file: string) {
  return collect(readQwen(file, READ));
}
async function transcript(file: string): Promise<Transcript> {
  const [t] = transcriptsOf(await read(file));
  return t.transcript;
}

describe('Qwen Code chats', () => {
  it('lands on its own reader, every line accounted for, no error', async () => {
    for (const file of [MAIN, REWIND]) {
      const d = await detectFormat(file, READ);
      expect(d.ok && d.format, file).toBe('qwen');
      const items = await collect(readInputs([file], READ));
      expect(errorsOf(items)).toEqual([]);
      expect(accountedUnits(items)).toBe(lineCount(file));
    }
  });

  it('reads thinking, tool calls and their results as the model saw them', async () => {
    const t = await transcript(MAIN);
    expect(t.id).toBe('5b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d');
    const [first] = t.messages.filter(isAssistant) as AssistantMessage[];
    expect(first).toMatchObject({
      content: null,
      reasoning_content: expect.stringMatching(/^The user reports a wrong total/),
      reasoning_not_resent: true,
      tool_calls: [{ id: 'call_1', function: { name: 'read_file' } }],
      model: 'qwen3-coder-plus',
    });
    expect(t.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1', name: 'read_file' });
    expect(t.metadata).toMatchObject({ cwd: '/home/dev/projects/shop', version: '0.4.1', models: ['qwen3-coder-plus'] });
  });

  it('puts the compressed history after a chat_compression record, its summary marked, as a source point', async () => {
    const t = await transcript(MAIN);
    const [c] = t.metadata?.compactions as { summaryIndex: number; replacementFrom: number; replacementTo: number }[];
    expect(t.messages[c.summaryIndex]).toMatchObject({ role: 'user', is_compact_summary: true, content: expect.stringMatching(/^<state_snapshot>/) });
    expect(t.messages.slice(c.replacementFrom, c.replacementTo).map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(t.messages[c.replacementTo]).toMatchObject({ role: 'user', content: expect.stringMatching(/^Now add a test/) });
  });

  it("keeps the subagent's calls (api_response telemetry only) apart from the session's own", async () => {
    const t = await transcript(MAIN);
    expect(t.metadata?.embeddedCalls).toMatchObject([{ agentId: 'explore-7f3c', calls: [{ model: 'qwen3-coder-flash' }, {}, {}] }]);
    expect(t.metadata?.mainApiResponses).toBe(6);
    expect(recordedUsage(t)?.calls).toBe(6);
  });

  it('follows the chain a rewind left: the abandoned branch is skipped, its call summed apart', async () => {
    const items = await read(REWIND);
    const t = transcriptsOf(items)[0].transcript;
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(t.messages[4]).toMatchObject({ content: 'Which of those exports are unused?' });
    const skipped = items.filter((i) => i.kind === 'skipped').map((i) => (i.kind === 'skipped' ? i.reason : ''));
    expect(skipped.filter((r) => r.startsWith('record:off-branch/'))).toHaveLength(4);
    expect(t.metadata?.offBranchUsage).toEqual({ calls: 1, input_tokens: 4197, cached_input_tokens: 4096, output_tokens: 44 });
  });

  // The record's sums: ccusage's input and cache reads, per session (the abandoned branch's call added, which ccusage
  // counts as billed too); output is the candidates and the thoughts, where ccusage drops the thoughts of each
  // Gemini-shaped record (thoughtsTokenCount apart from the candidates): 120 + 90 in MAIN, 150 in REWIND.
  it.each([
    [MAIN, 0, 1212, 120 + 90],
    [REWIND, 1, 390, 150],
  ] as const)('records the usage of %s as its lines give it, ccusage beside it', async (file, offBranchCalls, output, thoughtsCcusageDrops) => {
    const t = await transcript(file);
    const usage = recordedUsage(t) as NonNullable<ReturnType<typeof recordedUsage>>;
    const off = (t.metadata?.offBranchUsage ?? { calls: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 }) as Record<string, number>;
    const cc = CCUSAGE[file];
    expect(off.calls).toBe(offBranchCalls);
    expect(usage.input + off.input_tokens).toBe(cc.inputTokens);
    expect(usage.cacheRead + off.cached_input_tokens).toBe(cc.cacheReadTokens);
    expect(usage.uncachedInput + off.input_tokens - off.cached_input_tokens).toBe(cc.inputTokens - cc.cacheReadTokens);
    expect(usage.output + off.output_tokens).toBe(output);
    expect(output - thoughtsCcusageDrops).toBe(cc.outputTokens);
  });

  it('reads the thoughts inside the candidates when the total says so (an OpenAI-compatible provider)', async () => {
    const line = readFileSync(MAIN, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; usageMetadata?: Record<string, number> })
      .find((r) => r.type === 'assistant' && r.usageMetadata?.thoughtsTokenCount === 260);
    const u = line?.usageMetadata as Record<string, number>;
    expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount);
    const t = await transcript(MAIN);
    const reply = t.messages.filter(isAssistant).find((m) => m.tool_calls?.[0]?.id === 'call_3');
    expect(reply?.usage).toMatchObject({ output_tokens: u.candidatesTokenCount, reasoning_output_tokens: 260 });
  });

  // simulate --policy source --window 200000 --base-prompt recorded --token-ratio recorded, per session.
  it.each([MAIN, REWIND])('replays %s within 5%% of its recorded input', async (file) => {
    const t = await transcript(file);
    const tokenizer = getTokenizer();
    const options = ReplayOptionsSchema.parse({ window: 200_000, basePrompt: 'recorded', tokenRatio: 'recorded' });
    const { result, prompts } = await replayTranscript(t, { file, line: 1 }, [resolvePolicy('source', tokenizer)], options, { tokenizer });
    const recorded = t.messages
      .filter(isAssistant)
      .filter((m) => !m.is_compact_summary)
      .map((m) => recordedPromptTokens(m) as number);
    expect(prompts.source).toHaveLength(recorded.length);
    // Each call too: the replay counts what the record's prompt held (1% here: the parts' framing).
    prompts.source.forEach((p, i) => expect(Math.abs(p / recorded[i] - 1), `call ${i}`).toBeLessThan(0.05));
    expect(Math.abs((result.policies.source.billedInput ?? 0) / (result.recorded?.input ?? 1) - 1)).toBeLessThan(0.05);
  });
});
