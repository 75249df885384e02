import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCodex } from '../../src/formats/codex.js';
import { type AssistantMessage, isAssistant } from '../../src/model/message.js';
import { isUnpricedRequest } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recordedPromptTokens, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { ReplayOptionsSchema } from '../../src/replay/replay-options.js';
import { replayTranscript } from '../../src/replay/transcript-replay.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Rollouts written from Codex's published format, with the token_count events an API that saw each prompt as Codex
// sends it would give (see test/fixtures/codex-usage/SOURCE.md and generate.mjs).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'codex-usage');
const TURNS = join(HOME, 'sessions/2026/03/05/rollout-2026-03-05T09-00-00-019c6f10-2a3b-7c4d-8e5f-6a7b8c9d0e1f.jsonl');
const COMPACTION = join(HOME, 'sessions/2026/03/06/rollout-2026-03-06T14-00-00-019c7a20-3b4c-7d5e-8f60-7b8c9d0e1f2a.jsonl');
const LEGACY = join(HOME, 'legacy/rollout-2025-08-22T10-00-00-5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl');

/**
 * `npx ccusage@20.0.24 codex session --json --offline` with CODEX_HOME at test/fixtures/codex-usage: its
 * `inputTokens` (uncached), `cacheReadTokens` and `outputTokens` per session. The requests are the events it counts.
 */
const CCUSAGE = {
  [TURNS]: { requests: 7, inputTokens: 34673, cacheReadTokens: 68352, outputTokens: 2231 },
  [COMPACTION]: { requests: 10, inputTokens: 26410, cacheReadTokens: 72320, outputTokens: 1712 },
};

async function transcript(file: string): Promise<Transcript> {
  const [t] = transcriptsOf(await collect(readCodex(file, READ)));
  return t.transcript;
}

const requests = (t: Transcript) => t.messages.filter(isAssistant).filter((m) => !isUnpricedRequest(m) && !m.is_compact_summary);

/** The `source` replay of one rollout: each call's prompt beside the record's input for it. */
async function replayed(file: string, tokenRatio: 1 | 'recorded') {
  const t = await transcript(file);
  const tokenizer = getTokenizer();
  const options = ReplayOptionsSchema.parse({ window: 272_000, basePrompt: 'recorded', tokenRatio });
  const { result, prompts } = await replayTranscript(t, { file, line: 1 }, [resolvePolicy('source', tokenizer)], options, { tokenizer });
  const recorded = requests(t).map((m) => recordedPromptTokens(m) as number);
  return { result, prompts: prompts.source, recorded };
}

describe('Codex usage as the API saw it', () => {
  it.each([TURNS, COMPACTION])('reads the usage ccusage reads, request for request: %s', async (file) => {
    const oracle = CCUSAGE[file];
    const usage = recordedUsage(await transcript(file));
    expect(usage).toMatchObject({
      calls: oracle.requests,
      input: oracle.inputTokens + oracle.cacheReadTokens,
      uncachedInput: oracle.inputTokens,
      cacheRead: oracle.cacheReadTokens,
      output: oracle.outputTokens,
    });
  });

  it('prices nothing with a null, a repeated or a zero token_count event', async () => {
    const lines = readFileSync(COMPACTION, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; payload: { type: string; info: unknown } });
    const counts = lines.filter((l) => l.type === 'event_msg' && l.payload.type === 'token_count');
    // The fixture holds each shape: the null before the first response, repeats at each request's start, the zero after `compacted`.
    expect(counts.filter((l) => l.payload.info === null)).toHaveLength(1);
    const zero = lines.findIndex((l) => l.type === 'compacted') + 1;
    expect(lines[zero]).toMatchObject({ type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 0 } } } });
    expect(counts.length).toBeGreaterThan(2 * CCUSAGE[COMPACTION].requests);
    const t = await transcript(COMPACTION);
    expect(t.messages.filter(isAssistant).filter((m) => !m.is_compact_summary)).toHaveLength(CCUSAGE[COMPACTION].requests);
    expect(requests(t).every((m) => (recordedPromptTokens(m) ?? 0) > 0)).toBe(true);
  });

  it('keeps one response one request: commentary and answer, web searches and the call after them, reasoning', async () => {
    const t = await transcript(TURNS);
    const replies = t.messages.filter(isAssistant);
    expect(replies).toHaveLength(8);
    const search = replies[1];
    expect(search.tool_calls?.map((c) => c.function.name)).toEqual(['web_search', 'web_search', 'apply_patch']);
    expect(search.reasoning_content).toMatch(/^\*\*Looking up the error\*\*/);
    expect(search.usage).toBeDefined();
    const answer = replies[3];
    expect(answer.content).toEqual([
      { type: 'text', text: 'The build passes again.' },
      { type: 'text', text: expect.stringMatching(/^Fixed: /) },
    ]);
    expect(answer.usage).toBeDefined();
    expect(replies[0]).toMatchObject({ content: "I'll run the build and read its log first.", tool_calls: [{ id: 'call_build' }] });
  });

  it('marks the aborted request unpriced and keeps its items; no call of the replay bills it', async () => {
    const t = await transcript(TURNS);
    const aborted = t.messages.filter(isAssistant).filter(isUnpricedRequest) as AssistantMessage[];
    expect(aborted).toHaveLength(1);
    expect(aborted[0]).toMatchObject({ tool_calls: [{ id: 'call_lint' }] });
    expect(aborted[0].usage).toBeUndefined();
    const { result } = await replayed(TURNS, 1);
    expect(result.policies.source.calls).toBe(CCUSAGE[TURNS].requests);
  });

  it('carries each line time and the truncation policy', async () => {
    const t = await transcript(TURNS);
    expect(t.messages.every((m) => typeof m.timestamp === 'string')).toBe(true);
    const log = t.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_build');
    expect(log).toMatchObject({ truncation_policy: { mode: 'tokens', limit: 10000 } });
    expect((log?.content as string).length).toBeGreaterThan(130_000);
  });

  // Each call's prompt within 5% of the record's input for that call: the tool output trimmed as Codex sends it, the
  // finished turn's reasoning left out, the replacement history with no developer message twice. After the remote
  // compaction each prompt misses the encrypted summary, 300 tokens the rollout cannot show (generate.mjs): that much
  // under is allowed too.
  it.each([
    [TURNS, 1],
    [TURNS, 'recorded'],
    [COMPACTION, 1],
    [COMPACTION, 'recorded'],
  ] as const)('replays every call of %s within 5%% of its record (token ratio %s)', async (file, ratio) => {
    const { prompts, recorded, result } = await replayed(file, ratio);
    expect(prompts).toHaveLength(recorded.length);
    const off = prompts.map((p, i) => p - recorded[i]);
    const within = off.every((d, i) => Math.abs(d) <= 0.05 * recorded[i] || (d < 0 && d >= -320));
    expect(within, `per call, tokens: ${off.join(' ')}`).toBe(true);
    expect(Math.abs(result.policies.source.billedInput / (result.recorded?.input ?? 0) - 1)).toBeLessThan(0.05);
  });

  it('keeps a 2025 response one request: commentary, reasoning and call', async () => {
    const t = await transcript(LEGACY);
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.messages[1]).toMatchObject({
      content: 'Reading the store first.',
      reasoning_content: 'Where is the list loaded?',
      tool_calls: [{ id: 'call_cat' }],
    });
  });

  it('simulate: the source replay within 5% of each session and 3% in total, as many calls as requests', async () => {
    const dir = tempDir('codex-usage-'); // removed when the test ends
    for (const ratio of [[], ['--token-ratio', 'recorded']]) {
      const out = join(dir, `sim${ratio.length}`);
      const run = await runMain([
        'simulate',
        join(HOME, 'sessions'),
        '--policy',
        'source',
        '--window',
        '272000',
        '--base-prompt',
        'recorded',
        ...ratio,
        '--out',
        out,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
        perTranscript: { policies: { source: { calls: number; billedInput: number } }; recorded: { calls: number; input: number } }[];
      };
      let billed = 0;
      let recorded = 0;
      for (const t of report.perTranscript) {
        expect(t.policies.source.calls).toBe(t.recorded.calls);
        expect(Math.abs(t.policies.source.billedInput / t.recorded.input - 1)).toBeLessThan(0.05);
        billed += t.policies.source.billedInput;
        recorded += t.recorded.input;
      }
      expect(report.perTranscript).toHaveLength(2);
      expect(Math.abs(billed / recorded - 1)).toBeLessThan(0.03);
    }
  });
});
