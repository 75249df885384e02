import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGeminiChat } from '../../src/formats/gemini-chat.js';
import { readGeminiCheckpoint } from '../../src/formats/gemini-checkpoint.js';
import type { AssistantMessage, Message, ToolMessage } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { compactAndRestore } from './_round-trip.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, rawJsonl, scratchFile, skippedOf, transcriptsOf } from './helpers.js';

// Fixtures built from gemini-cli's writers (chatRecordingService.ts, chatRecordingTypes.ts, checkpointUtils.ts): no
// recording or checkpoint was found under a licence that allows copying.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'gemini');
const DOCUMENT = join(FIXTURES, 'chats', 'session-2025-11-12T09-44-2f32182a.json');
const LINES = join(FIXTURES, 'chats', 'session-2026-05-02T10-15-8d582aea.jsonl');
const CHECKPOINT = join(FIXTURES, 'checkpoints', '2025-11-12T09_44_40_017Z-list.ts-replace.json');

type Raw = Record<string, unknown>;
const calls = (m: Message[]) => m.flatMap((x) => (x.role === 'assistant' ? ((x as AssistantMessage).tool_calls ?? []) : []));
const tools = (m: Message[]) => m.filter((x): x is ToolMessage => x.role === 'tool');
const isResponseRecord = (r: Raw) =>
  r.type === 'user' && Array.isArray(r.content) && r.content.length > 0 && r.content.every((p: Raw) => p.functionResponse !== undefined);

describe('Gemini CLI chat recordings', () => {
  it('reads the whole-document layout: replies with thoughts, usage and calls, each result after its call', async () => {
    const raw = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { projectHash: string; messages: Raw[] };
    const items = await collect(readGeminiChat(DOCUMENT, { ...READ, layout: 'json' }));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(1);
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    expect(t.transcript.id).toBe('2f32182a-5d0e-4b8e-9f3c-6a1d2e7b9c40');
    // Counted from the raw file: every user and gemini record, every recorded call, every call with a result.
    const rawCalls = raw.messages.flatMap((r) => (Array.isArray(r.toolCalls) ? (r.toolCalls as Raw[]) : []));
    expect(m.filter((x) => x.role === 'user')).toHaveLength(raw.messages.filter((r) => r.type === 'user').length);
    expect(m.filter((x) => x.role === 'assistant')).toHaveLength(raw.messages.filter((r) => r.type === 'gemini').length);
    expect(calls(m).map((c) => c.id)).toEqual(rawCalls.map((c) => c.id));
    expect(tools(m).filter((x) => x.content !== NO_RESULT_TEXT)).toHaveLength(rawCalls.filter((c) => c.result).length);
    // The call still executing when the file was written is reported, not dropped.
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    expect(
      tools(m)
        .filter((x) => x.is_error)
        .map((x) => x.content),
    ).toEqual(['Command exited with code 1: npm ERR! missing script: test', '[Operation Cancelled] Reason: User did not allow tool call']);
    expect(m[1]).toMatchObject({
      content: "I'll look at how the list command loads the file.",
      reasoning_content: 'Locating the loader\nThe crash is on an empty file, so the JSON parsing of todos.json is the first suspect.',
      model: 'gemini-2.5-pro',
      usage: { input_tokens: 8123, cached_input_tokens: 0, output_tokens: 137, reasoning_output_tokens: 96, total_tokens: 8260 },
    });
    expect(m[6]).toMatchObject({ content: null });
    expect(t.transcript.metadata).toMatchObject({ projectHash: raw.projectHash, models: ['gemini-2.5-pro'], notices: { info: 1 } });
    expect(findViolations(m)).toEqual([]);
  });

  it('reads the JSON Lines layout: the last copy of a record wins, rewinds drop, tool-response records are not repeated', async () => {
    const items = await collect(readGeminiChat(LINES, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(LINES));
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([[16, 'record:info']]);
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    // Independent count: the distinct records of the file, the rewound one removed.
    const records = new Map<string, Raw>();
    for (const line of rawJsonl(LINES)) {
      const list = line.$set && Array.isArray((line.$set as Raw).messages) ? ((line.$set as Raw).messages as Raw[]) : typeof line.id === 'string' ? [line] : [];
      for (const r of list) if (r.type === 'user' || r.type === 'gemini') records.set(r.id as string, r);
    }
    const rewound = rawJsonl(LINES)
      .filter((l) => typeof l.$rewindTo === 'string')
      .map((l) => l.$rewindTo);
    const live = [...records.values()].filter((r) => !rewound.includes(r.id));
    expect(m.filter((x) => x.role !== 'tool')).toHaveLength(live.filter((r) => !isResponseRecord(r)).length);
    const liveCalls = new Set(live.flatMap((r) => (Array.isArray(r.toolCalls) ? (r.toolCalls as Raw[]).map((c) => c.id) : [])));
    expect(calls(m).map((c) => c.id)).toEqual([...liveCalls]);
    expect(tools(m)).toHaveLength(liveCalls.size);
    expect(t.repairs).toEqual({});
    expect(t.transcript.metadata).toMatchObject({ toolResponseRecords: 3, rewoundMessages: 1, kind: 'main' });
    // The usage arrived in a later copy of the first reply.
    expect(m[1]).toMatchObject({ usage: { input_tokens: 9412, output_tokens: 179 }, tool_calls: [{ function: { name: 'search_file_content' } }] });
    expect(findViolations(m)).toEqual([]);
  });

  it("keeps the CLI's compression as a compaction point: the summary marked, the earlier history kept", async () => {
    const [t] = transcriptsOf(await collect(readGeminiChat(LINES, READ)));
    const m = t.transcript.messages;
    // It kept the reply that called `replace` and that call's response record: from message 3 on, not the last two.
    expect(t.transcript.metadata?.compactions).toEqual([{ summaryIndex: 6, keptMessages: 2, keptFromIndex: 3 }]);
    expect(m[3]).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'replace' } }, { function: { name: 'replace' } }] });
    expect(m[6]).toMatchObject({ role: 'user', is_compact_summary: true });
    expect(String(m[6].content)).toMatch(/^<state_snapshot>/);
    expect(m.filter((x) => x.is_compact_summary)).toHaveLength(1);
    // eval and simulate --policy source see it: the point before the next model call, with the summary.
    // The replay keeps what the compression kept beside its summary (from message 3 on), as the CLI does.
    expect(sourceCompactionPoints(t.transcript)).toEqual([{ call: 2, callIndex: 7, index: 6, keptFrom: 3, kinds: ['compacted'], summary: m[6] }]);
  });

  it('reports a line it cannot read with its number and reads the rest', async () => {
    const lines = readFileSync(LINES, 'utf8').split('\n');
    lines.splice(3, 0, '42', '{"id":"x","type":"model","content":""}');
    const file = scratchFile('session-broken.jsonl', lines.join('\n'));
    const items = await collect(readGeminiChat(file, READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message])).toEqual([
      [4, 'E_SCHEMA', 'a Gemini CLI recording line must be an object'],
      [5, 'E_SCHEMA', 'type: unknown message type "model"'],
    ]);
    expect(accountedUnits(items)).toBe(lineCount(file));
    expect(transcriptsOf(items)).toHaveLength(1);
  });

  it('compacts and restores both layouts byte for byte', async () => {
    let saved = 0;
    for (const [file, layout] of [
      [DOCUMENT, 'json'],
      [LINES, 'jsonl'],
    ] as const) {
      for (const t of transcriptsOf(await collect(readGeminiChat(file, { ...READ, layout })))) saved += compactAndRestore(t.transcript);
    }
    expect(saved).toBeGreaterThan(0);
  });
});

describe('Gemini CLI checkpoints', () => {
  it('pairs id-less calls with the responses that follow, and reports the pending call the checkpoint was taken for', async () => {
    const raw = JSON.parse(readFileSync(CHECKPOINT, 'utf8')) as { clientHistory: { role: string; parts: Raw[] }[]; toolCall: Raw };
    const items = await collect(readGeminiCheckpoint(CHECKPOINT, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(1);
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    const parts = raw.clientHistory.flatMap((c) => c.parts);
    const responses = parts.filter((p) => p.functionResponse).map((p) => p.functionResponse as Raw);
    expect(calls(m)).toHaveLength(parts.filter((p) => p.functionCall).length);
    expect(m.filter((x) => x.role === 'assistant')).toHaveLength(raw.clientHistory.filter((c) => c.role === 'model').length);
    // Answered calls take their response's id; the last one has none yet and is filled by the repair, reported.
    expect(calls(m).map((c) => c.id)).toEqual([...responses.map((r) => r.id), '2025-11-12T09_44_40_017Z-list.ts-replace#call-5-0']);
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    expect(m.at(-1)).toMatchObject({ role: 'tool', content: NO_RESULT_TEXT });
    expect(calls(m).at(-1)?.function).toEqual({ name: raw.toolCall.name, arguments: JSON.stringify(raw.toolCall.args) });
    expect(t.transcript.metadata).toMatchObject({ commitHash: '3f9a1c27d85e4b6f0a2c9e71b5d3f8a6c4e2b190', uiHistoryItems: 4 });
    expect(findViolations(m)).toEqual([]);
    compactAndRestore(t.transcript);
  });

  it('reports a checkpoint without clientHistory as E_SCHEMA', async () => {
    const file = scratchFile('checkpoint-no-history.json', JSON.stringify({ toolCall: { name: 'replace', args: {} }, commitHash: 'abc' }));
    const items = await collect(readGeminiCheckpoint(file, READ));
    expect(errorsOf(items).map((e) => e.record.code)).toEqual(['E_SCHEMA']);
    expect(accountedUnits(items)).toBe(1);
  });
});
