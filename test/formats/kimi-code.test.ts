import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { isAssistant } from '../../src/model/message.js';
import { embeddedUsage, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { expectSourceReplayWithin5Percent } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Sessions written by test/fixtures/kimi-code/generate.mjs in the shapes Kimi Code writes (see its README.md).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'kimi-code');
const SESSIONS = join(HOME, 'sessions', 'wd_todo-cli_b75bda135092');
const COMPACTED = '5b0e7c1a-2d3f-4a6b-8c9d-0e1f2a3b4c5d';
const SUBAGENT = `${COMPACTED}/agent-0`;
const UNDONE = '9c8d7e6f-5a4b-4c3d-9e2f-1a0b9c8d7e6f';
const LEGACY = '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9';
const wire = (session: string, agent = 'main') => join(SESSIONS, session, 'agents', agent, 'wire.jsonl');

type Usage = { inputTokens: number; cacheCreationTokens: number; cacheReadTokens: number; outputTokens: number };

/**
 * `KIMI_DATA_DIR=test/fixtures/kimi-code npx -y ccusage@20.0.24 kimi session --json --offline` (the same with HOME
 * holding the folder as `.kimi-code`), per session: the session's agents together. ccusage counts only the
 * `usage.record`s whose `usageScope` is `turn`: it leaves out the compaction's own request (`session`) and every
 * record written before the scope existed (the 1.0 session: none of its calls).
 */
const CCUSAGE: Record<string, Usage> = {
  [COMPACTED]: { inputTokens: 19663, cacheCreationTokens: 0, cacheReadTokens: 40704, outputTokens: 379 },
  [UNDONE]: { inputTokens: 15561, cacheCreationTokens: 0, cacheReadTokens: 38656, outputTokens: 300 },
};

/** What the records give: each transcript's own calls, and the compaction requests beside them (embedded calls). */
const RECORDED: Record<string, { own: Usage; compaction?: Usage }> = {
  [COMPACTED]: {
    own: { inputTokens: 14604, cacheCreationTokens: 0, cacheReadTokens: 35840, outputTokens: 304 },
    compaction: { inputTokens: 14701, cacheCreationTokens: 0, cacheReadTokens: 0, outputTokens: 135 },
  },
  [SUBAGENT]: { own: { inputTokens: 5059, cacheCreationTokens: 0, cacheReadTokens: 4864, outputTokens: 75 } },
  [UNDONE]: { own: CCUSAGE[UNDONE] },
  [LEGACY]: {
    own: { inputTokens: 16214, cacheCreationTokens: 0, cacheReadTokens: 14080, outputTokens: 113 },
    compaction: { inputTokens: 10829, cacheCreationTokens: 0, cacheReadTokens: 0, outputTokens: 73 },
  },
};

async function read() {
  const items = await collect(readInputs([HOME], READ));
  return { items, transcripts: Object.fromEntries(transcriptsOf(items).map((t) => [t.transcript.id, t])) };
}

const fields = (u: { uncachedInput: number; cacheCreation: number; cacheRead: number; output: number }): Usage => ({
  inputTokens: u.uncachedInput,
  cacheCreationTokens: u.cacheCreation,
  cacheReadTokens: u.cacheRead,
  outputTokens: u.output,
});

describe('Kimi Code sessions', () => {
  it("detects the agents' wire logs and the sessions' state.json as kimi-code", async () => {
    for (const file of [wire(COMPACTED), wire(COMPACTED, 'agent-0'), wire(LEGACY)])
      expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'kimi-code', layout: 'jsonl' });
    expect(await detectFormat(join(SESSIONS, COMPACTED, 'state.json'), READ)).toMatchObject({ ok: true, format: 'kimi-code' });
  });

  it('reads one transcript per agent log, accounts for every line once, and skips state.json', async () => {
    const { items, transcripts } = await read();
    expect(Object.keys(transcripts).sort()).toEqual([LEGACY, COMPACTED, SUBAGENT, UNDONE].sort());
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    expect(items.filter((i) => i.kind === 'skipped').map((i) => i.kind === 'skipped' && i.reason)).toEqual(Array(3).fill('record:kimi-code/state'));
    const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean).length;
    expect(transcripts[COMPACTED].lines).toBe(lines(wire(COMPACTED)));
    expect(transcripts[SUBAGENT].lines).toBe(lines(wire(COMPACTED, 'agent-0')));
    for (const t of Object.values(transcripts)) expect(t.warnings).toEqual([]);
    expect(transcripts[SUBAGENT].transcript.metadata).toMatchObject({ parentSessionId: COMPACTED, agentId: 'agent-0' });
    expect(transcripts[COMPACTED].transcript.metadata).toMatchObject({ sessionId: COMPACTED, agentId: 'main', protocolVersion: '1.5' });
  });

  it('builds each reply from its step: thinking, text and tool calls, with the usage.record after it', async () => {
    const t = (await read()).transcripts[COMPACTED].transcript;
    expect(t.messages[0]).toMatchObject({ role: 'system' });
    const first = t.messages.find(isAssistant)!;
    expect(first.reasoning_content).toMatch(/^Probably JSON.parse on empty text/);
    expect(first.content).toBe('Reading the store.');
    expect(first.tool_calls?.[0]).toMatchObject({ id: 'tool_1', function: { name: 'Read', arguments: '{"path":"src/store.ts"}' } });
    expect(first).toMatchObject({ model: 'kimi-code/kimi-for-coding', usage: { input_tokens: 5212, cache_read_input_tokens: 0, output_tokens: 74 } });
  });

  it('replaces the context at a compaction with the user messages it kept, then its summary', async () => {
    const t = (await read()).transcripts[COMPACTED].transcript;
    const [c] = t.metadata?.compactions as { summaryIndex: number; replacementFrom: number; replacementTo: number; preTokens: number }[];
    const kept = t.messages.slice(c.replacementFrom, c.replacementTo);
    expect(kept.map((m) => m.role)).toEqual(['user', 'user', 'user']);
    expect(kept.every((m) => m.is_compact_summary === true)).toBe(true);
    expect(c.summaryIndex).toBe(c.replacementTo - 1);
    expect(String(t.messages[c.summaryIndex].content)).toMatch(/^The conversation so far has been compacted/);
    expect(c.preTokens).toBe(14701);
  });

  it('marks an undo as the context starting over from what was left, and a clear as empty', async () => {
    const t = (await read()).transcripts[UNDONE].transcript;
    const [undo, clear] = t.metadata?.compactions as { revert?: true; cleared?: true; index: number; replacementFrom: number; replacementTo: number }[];
    expect(undo.revert).toBe(true);
    expect(t.messages.slice(undo.replacementFrom, undo.replacementTo).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(String(t.messages[undo.replacementTo].content)).toContain('Only list the closed ones');
    expect(clear).toMatchObject({ cleared: true, replacementFrom: clear.index, replacementTo: clear.index });
    expect(String(t.messages[clear.index].content)).toContain('Rename the --all flag');
  });

  it('reads protocol 1.0: whole assistant messages, function-wrapped tool calls, the older compaction record', async () => {
    const t = (await read()).transcripts[LEGACY].transcript;
    expect(t.metadata).toMatchObject({ protocolVersion: '1.0' });
    expect(t.messages.find(isAssistant)?.tool_calls?.[0]).toMatchObject({ function: { name: 'Read' } });
    const [c] = t.metadata?.compactions as { summaryIndex: number; replacementFrom: number; replacementTo: number }[];
    // The summary, then the history from compactedCount on (a user prompt, a reply with a tool call, its result).
    expect(t.messages.slice(c.replacementFrom, c.replacementTo).map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(c.summaryIndex).toBe(c.replacementFrom);
  });

  it('reads the oldest compaction record, its summary a whole message and its count as `count`', async () => {
    const dir = join(tempDir('kimi-code-oldest'), 'sessions', 'wd_x_0', 's1', 'agents', 'main'); // removed when the test ends
    mkdirSync(dir, { recursive: true });
    const msg = (role: string, text: string) => ({ role, content: [{ type: 'text', text }], toolCalls: [] });
    const records = [
      { type: 'metadata', protocol_version: '1.0', created_at: 1 },
      { type: 'context.append_message', message: msg('user', 'first'), time: 2 },
      { type: 'context.append_message', message: msg('assistant', 'one'), time: 3 },
      { type: 'context.append_message', message: msg('user', 'second'), time: 4 },
      { type: 'context.apply_compaction', summary: msg('user', 'S'), count: 2, time: 5 },
      { type: 'context.append_message', message: msg('assistant', 'two'), time: 6 },
    ];
    writeFileSync(join(dir, 'wire.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const [item] = transcriptsOf(await collect(readInputs([join(dir, 'wire.jsonl')], READ)));
    const [c] = item.transcript.metadata?.compactions as { summaryIndex: number; replacementFrom: number; replacementTo: number }[];
    expect(item.transcript.messages.slice(c.replacementFrom, c.replacementTo).map((m) => m.content)).toEqual(['S', 'second']);
    expect(c.summaryIndex).toBe(c.replacementFrom);
  });

  it.each(Object.keys(RECORDED))('records the usage of each call, the compaction requests apart: %s', async (id) => {
    const t = (await read()).transcripts[id].transcript;
    expect(fields(recordedUsage(t)!)).toEqual(RECORDED[id].own);
    const embedded = embeddedUsage(t, 'kimi-for-coding');
    expect(embedded.map((e) => e.agentId)).toEqual(RECORDED[id].compaction ? ['compaction'] : []);
    if (RECORDED[id].compaction) expect(fields(embedded[0])).toEqual(RECORDED[id].compaction);
  });

  it.each(Object.keys(CCUSAGE))("equals ccusage's turn calls per session (its agents together): %s", async (id) => {
    const { transcripts } = await read();
    const agents = Object.values(transcripts).filter((t) => t.transcript.id === id || t.transcript.metadata?.parentSessionId === id);
    const sum = agents
      .map((t) => fields(recordedUsage(t.transcript)!))
      .reduce((a, b) => ({
        inputTokens: a.inputTokens + b.inputTokens,
        cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        outputTokens: a.outputTokens + b.outputTokens,
      }));
    expect(sum).toEqual(CCUSAGE[id]);
  });

  it('simulate: the source replay within 5% of each transcript', async () => {
    const rows = await expectSourceReplayWithin5Percent([join(HOME, 'sessions')]);
    expect(rows).toHaveLength(4);
  });
});
