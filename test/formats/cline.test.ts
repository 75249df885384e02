import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCline } from '../../src/formats/cline.js';
import { detectFormat } from '../../src/formats/detect.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { AssistantMessage, ToolMessage } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { compactAndRestore } from './_round-trip.js';
import { READ, accountedUnits, collect, errorsOf, scratchFile, transcriptsOf } from './helpers.js';

// Built from Cline's writer (apps/vscode/src/shared/messages/content.ts ClineStorageMessage,
// core/task/tools/utils/ToolResultUtils.ts pushToolResult): the one public history found carries no licence.
const TASK = join(import.meta.dirname, '..', 'fixtures', 'cline', 'tasks', '1762940642118', 'api_conversation_history.json');
// Built from Roo Code's writer (src/core/task-persistence/apiMessages.ts LegacyApiMessage, src/core/condense/index.ts
// summarizeConversation): a non-destructive condense and OpenAI-style reasoning elements.
const ROO_TASK = join(import.meta.dirname, '..', 'fixtures', 'roo', 'tasks', '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b', 'api_conversation_history.json');

type Block = { type: string; text?: string; id?: string; tool_use_id?: string };
type Raw = { role: string; content: Block[]; metrics?: { tokens: { prompt: number; completion: number; cached: number } } };

describe('Cline api_conversation_history.json', () => {
  it('pairs "[tool] Result:" text blocks with the calls they answer, and keeps tool_result blocks, usage and model', async () => {
    const raw = JSON.parse(readFileSync(TASK, 'utf8')) as Raw[];
    const items = await collect(readCline(TASK, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(raw.length);
    const [t] = transcriptsOf(items);
    expect(t.transcript.id).toBe('1762940642118');
    const m = t.transcript.messages;
    const blocks = raw.flatMap((r) => r.content);
    const uses = blocks.filter((b) => b.type === 'tool_use');
    const textResults = blocks.filter((b) => b.type === 'text' && /^\[[^\]]*\] Result:/.test(b.text ?? ''));
    const resultBlocks = blocks.filter((b) => b.type === 'tool_result');
    const calls = m.flatMap((x) => (x.role === 'assistant' ? ((x as AssistantMessage).tool_calls ?? []) : []));
    const results = m.filter((x): x is ToolMessage => x.role === 'tool');
    expect(calls.map((c) => c.id)).toEqual(uses.map((u) => u.id));
    expect(results.filter((r) => r.content !== NO_RESULT_TEXT)).toHaveLength(textResults.length + resultBlocks.length);
    expect(t.transcript.metadata?.textToolResults).toBe(textResults.length);
    // attempt_completion is never answered in the file: reported, not dropped.
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    expect(results[1]).toMatchObject({
      tool_call_id: uses[1].id,
      content: "[execute_command for 'wc -c todos.json'] Result:\nCommand executed.\nOutput:\n0 todos.json",
    });
    // The environment details sent with the results stay a user message after them.
    expect(m[4]).toMatchObject({ role: 'user', content: [{ type: 'text', text: expect.stringMatching(/^<environment_details>/) }] });
    expect(m[1]).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      // Cline's `prompt` leaves the cache out for every provider but the generic OpenAI one (see _cline-ui.ts).
      usage: { input_tokens: 11874, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 187 },
      ts: 1762940649402,
    });
    expect(m.filter((x) => x.role === 'assistant').map((x) => (x as unknown as { usage: { output_tokens: number } }).usage.output_tokens)).toEqual(
      raw.filter((r) => r.metrics).map((r) => r.metrics!.tokens.completion),
    );
    expect(findViolations(m)).toEqual([]);
    expect(compactAndRestore(t.transcript)).toBeGreaterThan(0);
  });

  it('leaves result text as user text when no tool_use block waits for it (XML tool calls)', async () => {
    const file = scratchFile(
      'api_conversation_history.json',
      JSON.stringify([
        { role: 'user', content: [{ type: 'text', text: '<task>list the files</task>' }], ts: 1 },
        { role: 'assistant', content: [{ type: 'text', text: '<list_files>\n<path>.</path>\n</list_files>' }], ts: 2 },
        { role: 'user', content: [{ type: 'text', text: "[list_files for '.'] Result:\na.ts\nb.ts" }], ts: 3 },
      ]),
    );
    const [t] = transcriptsOf(await collect(readCline(file, READ)));
    expect(t.transcript.messages.map((x) => x.role)).toEqual(['user', 'assistant', 'user']);
    expect(t.transcript.metadata?.textToolResults).toBeUndefined();
  });

  it('reports an element that is not a message with its index and reads the rest', async () => {
    const file = scratchFile('api_conversation_history.json', JSON.stringify([{ role: 'user', content: 'hi', ts: 1 }, { role: 'system', content: 'x' }, 7]));
    const items = await collect(readCline(file, READ));
    expect(errorsOf(items).map((e) => e.record.message)).toEqual([
      '[1]: expected a message with role "user" or "assistant"',
      '[2]: expected a message with role "user" or "assistant"',
    ]);
    expect(accountedUnits(items)).toBe(3);
    expect(transcriptsOf(items)).toHaveLength(1);
  });

  it("reads Roo Code's history: reasoning elements go to the next reply, the condense summary is a compaction point", async () => {
    const raw = JSON.parse(readFileSync(ROO_TASK, 'utf8')) as (Raw & { type?: string; isSummary?: boolean; condenseId?: string })[];
    const items = await collect(readCline(ROO_TASK, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(raw.length);
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    const blocks = raw.flatMap((r) => (Array.isArray(r.content) ? r.content : []));
    const calls = m.flatMap((x) => (x.role === 'assistant' ? ((x as AssistantMessage).tool_calls ?? []) : []));
    expect(calls.map((c) => c.id)).toEqual(blocks.filter((b) => b.type === 'tool_use').map((b) => b.id));
    expect(m.filter((x) => x.role === 'tool' && x.content !== NO_RESULT_TEXT)).toHaveLength(blocks.filter((b) => b.type === 'tool_result').length);
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    // One reasoning element has a summary, the other is encrypted only.
    expect(m[1]).toMatchObject({ reasoning_content: '**Locating the loader**\n\nThe crash is on an empty file; read the list command.' });
    expect(t.transcript.metadata?.encryptedReasoning).toBe(1);
    const summaryIndex = m.findIndex((x) => x.is_compact_summary);
    // Condense v1 kept the 3 messages after its summary, which end the task: the request it condensed for is not in it.
    expect(t.transcript.metadata?.compactions).toEqual([{ summaryIndex, index: m.length, keptHeadTo: 1, keptFromIndex: summaryIndex }]);
    expect(m[summaryIndex]).toMatchObject({ role: 'assistant', condenseId: raw.find((r) => r.isSummary)?.condenseId });
    expect(String(m[summaryIndex].content)).toMatch(/^1\. Previous Conversation:/);
    // The condensed messages keep their link to the summary that replaced them.
    expect(m.filter((x) => x.condenseParent !== undefined).length).toBeGreaterThan(0);
    expect(findViolations(m)).toEqual([]);
    expect(compactAndRestore(t.transcript)).toBeGreaterThan(0);
  });

  it("reads Roo Code's versioned envelope message by message, and refuses one of another version whole", async () => {
    const file = join(tempDir('roo-v2'), 'api_conversation_history.json');
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }], ts: 1 },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } }], ts: 2 },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'bogus' } }], ts: 3 },
    ];
    writeFileSync(file, JSON.stringify({ version: 2, messages }));
    expect(await detectFormat(file, READ)).toMatchObject({ ok: true, format: 'cline' });
    let items = await collect(readCline(file, READ));
    // The result whose output Roo never wrote is refused on its own; the rest is read.
    expect(errorsOf(items).map((e) => [e.record.code, e.record.message])).toEqual([
      ['E_SCHEMA', 'messages[2]: content[0]: tool-result: output type "bogus" with this value is not known'],
    ]);
    expect(transcriptsOf(items)[0].transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(accountedUnits(items)).toBe(3);
    writeFileSync(file, JSON.stringify({ version: 1, messages }));
    items = await collect(readCline(file, READ));
    expect(errorsOf(items).map((e) => e.record.code)).toEqual(['E_FORMAT']);
    expect(accountedUnits(items)).toBe(1);
  });

  it("records the folder a task worked in from what the extension keeps beside it: Roo Code's task summary, Cline's task history", async () => {
    const storage = tempDir('cline-storage');
    const rooTask = join(storage, 'roo', 'tasks', '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b');
    mkdirSync(rooTask, { recursive: true });
    copyFileSync(ROO_TASK, join(rooTask, 'api_conversation_history.json'));
    writeFileSync(
      join(rooTask, 'history_item.json'),
      JSON.stringify({ id: '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b', ts: 1763632800000, workspace: '/home/dev/roo' }),
    );
    const clineTask = join(storage, 'cline', 'tasks', '1762940642118');
    mkdirSync(clineTask, { recursive: true });
    copyFileSync(TASK, join(clineTask, 'api_conversation_history.json'));
    mkdirSync(join(storage, 'cline', 'state'));
    const history = [
      { id: '1762940000000', ts: 1762940000000, cwdOnTaskInitialization: '/home/dev/other' },
      { id: '1762940642118', ts: 1762940642118, cwdOnTaskInitialization: '/home/dev/cline' },
    ];
    writeFileSync(join(storage, 'cline', 'state', 'taskHistory.json'), JSON.stringify(history));
    const workspaceOf = async (file: string) => transcriptsOf(await collect(readCline(file, READ)))[0].transcript.metadata?.workspace;
    expect(await workspaceOf(join(rooTask, 'api_conversation_history.json'))).toBe('/home/dev/roo');
    expect(await workspaceOf(join(clineTask, 'api_conversation_history.json'))).toBe('/home/dev/cline');
    // A task folder copied alone records none.
    expect(await workspaceOf(TASK)).toBeUndefined();
  });
});
