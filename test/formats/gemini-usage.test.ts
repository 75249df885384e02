import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGeminiChat } from '../../src/formats/gemini-chat.js';
import type { AssistantMessage } from '../../src/model/message.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Gemini CLI sessions with usage, written from gemini-cli's chatRecordingService.ts and geminiChat.ts; each call's
// input computed from what later prompts hold (test/fixtures/gemini-usage/SOURCE.md).
const CHATS = join(import.meta.dirname, '..', 'fixtures', 'gemini-usage', 'chats');
const THOUGHTS = join(CHATS, 'session-2026-06-01T09-00-6d0c5b4a.json');
const NO_TOOL_CALLS = join(CHATS, 'session-2026-06-01T10-00-6d0c5b4a.jsonl');

type Tokens = { input: number; output: number; cached: number; thoughts: number };
const records = (file: string): { type: string; tokens?: Tokens }[] =>
  file.endsWith('.jsonl')
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; tokens?: Tokens })
        .filter((r) => r.type === 'gemini')
    : (JSON.parse(readFileSync(file, 'utf8')) as { messages: { type: string; tokens?: Tokens }[] }).messages.filter((r) => r.type === 'gemini');
const replies = async (file: string) =>
  transcriptsOf(await collect(readGeminiChat(file, { ...READ, layout: file.endsWith('.jsonl') ? 'jsonl' : 'json' })))[0].transcript.messages.filter(
    (m): m is AssistantMessage => m.role === 'assistant',
  );

describe('Gemini CLI replies as the CLI sends them back', () => {
  it('marks every reply: its thoughts stay out of later prompts', async () => {
    const thoughtful = await replies(THOUGHTS);
    expect(thoughtful).toHaveLength(12);
    for (const m of thoughtful) expect([typeof m.reasoning_content, m.reasoning_not_resent]).toEqual(['string', true]);
  });

  it('marks back-to-back records without tool calls: the retried one (same tokens.input) and the unlogged round trips', async () => {
    const list = await replies(NO_TOOL_CALLS);
    const raw = records(NO_TOOL_CALLS);
    expect(list).toHaveLength(raw.length);
    const marks = list.map((m) => (m.retried ? 'retried' : m.unlogged_round_trip ? 'round trip' : '-'));
    // Six turns of 2, 3, 2, 3, 2 and 3 records, a round trip between each two; turn 3's first reply was retried.
    const rt = 'round trip';
    expect(marks).toEqual([rt, '-', rt, rt, '-', 'retried', '-', rt, rt, '-', rt, '-', rt, rt, '-']);
    const retried = list.findIndex((m) => m.retried);
    expect(raw[retried].tokens!.input).toBe(raw[retried + 1].tokens!.input);
  });
});

interface SessionJson {
  id: string;
  cache: string;
  bestEffort: { ttlSeconds: number; ttlFrom: string; eligible: number; hit: number };
  tokenScale: { unlogged: { tokens: number; billed: number; share: number } };
  recorded: { input: number; uncachedInput: number; cacheRead: number; cacheCreation: number; output: number };
  policies: { source: { billedInput: number; outputTokens: number } };
}

describe('tcompact simulate on Gemini CLI sessions with usage', { timeout: 120_000 }, () => {
  let sessions: Map<string, SessionJson>;
  let md: string;
  beforeAll(async () => {
    const out = tempDir('gemini-usage');
    const args = ['--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', 'recorded', '--window', '1000000', '--out', out];
    const r = await runMain(['simulate', CHATS, ...args]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { perTranscript: SessionJson[] };
    sessions = new Map(json.perTranscript.map((t) => [t.id.slice(0, 13), t]));
    md = readFileSync(join(out, 'simulate.md'), 'utf8');
  });

  it('bills each session within 5% of its recorded input, under the Google cache', () => {
    expect([...sessions.keys()].sort()).toEqual(['6d0c5b4a-0001', '6d0c5b4a-0002']);
    for (const t of sessions.values()) {
      expect(t.cache).toBe('google');
      expect(Math.abs(t.policies.source.billedInput / t.recorded.input - 1)).toBeLessThan(0.05);
    }
    expect(md).toContain("`google` (2 transcripts): Google's implicit caching (Gemini)");
    expect(md).toContain('Its hits are best-effort');
  });

  it('bills the recorded output and thoughts as output, not the thought summaries', () => {
    for (const [id, file] of [
      ['6d0c5b4a-0001', THOUGHTS],
      ['6d0c5b4a-0002', NO_TOOL_CALLS],
    ] as const) {
      const billed = records(file).reduce((n, r) => n + r.tokens!.output + r.tokens!.thoughts, 0);
      expect(sessions.get(id)!.policies.source.outputTokens).toBe(billed);
      expect(sessions.get(id)!.recorded.output).toBe(billed);
    }
  });

  it("reads the recorded usage as ccusage 20.0.24's gemini session does", () => {
    // ccusage's inputTokens (uncached), cacheReadTokens and outputTokens + thoughts (its totalTokens less the rest).
    const ccusage = { '6d0c5b4a-0001': [70_766, 44_539, 130_814], '6d0c5b4a-0002': [102_747, 46_354, 158_550] };
    for (const [id, [input, read, total]] of Object.entries(ccusage)) {
      const r = sessions.get(id)!.recorded;
      expect([r.uncachedInput, r.cacheRead, r.cacheCreation, r.input + r.output]).toEqual([input, read, 0, total]);
    }
  });

  it("reports the record's best-effort hits and the unlogged round trips' share of the input", () => {
    const hidden = sessions.get('6d0c5b4a-0002')!;
    expect(hidden.bestEffort).toEqual({ ttlSeconds: 300, ttlFrom: 'rules', eligible: 14, hit: 5 });
    expect(hidden.tokenScale.unlogged.share).toBeGreaterThan(0.3);
    expect(hidden.tokenScale.unlogged.share).toBeCloseTo(hidden.tokenScale.unlogged.billed / hidden.recorded.input, 12);
    expect(sessions.get('6d0c5b4a-0001')!.tokenScale.unlogged).toMatchObject({ tokens: 0, billed: 0 });
  });
});
