import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCodex } from '../../src/formats/codex.js';
import { isAssistant } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { CODEX_FIXTURES, READ, accountedUnits, collect, errorsOf, lineCount, rawJsonl, scratchFile, skippedOf, transcriptsOf } from './helpers.js';

// Fixtures built from the documented rollout schema (codex-rs/protocol RolloutItem / ResponseItem): no real rollout
// file was available under a licence that allows copying.
const BASIC = join(CODEX_FIXTURES, 'rollout-2025-10-29T00-59-38-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl');
const COMPACTED = join(CODEX_FIXTURES, 'rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl');

describe('Codex rollout adapter', () => {
  it('converts a session: instructions, messages, reasoning, parallel calls, a custom tool, a failed call, usage', async () => {
    const items = await collect(readCodex(BASIC, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(BASIC));
    expect(skippedOf(items).map((s) => s.reason)).toEqual([
      'record:event_msg/user_message',
      'record:event_msg/agent_reasoning',
      'record:event_msg/patch_apply_end',
      'record:event_msg/agent_message',
      'record:event_msg/task_complete',
    ]);
    const [t] = transcriptsOf(items);
    expect(t.transcript.id).toBe('0199a213-81c0-7800-8aa1-bbab2a035a53');
    expect(t.repairs).toEqual({});
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(m[0].content).toBe('You are Codex, a coding agent running in a terminal. Keep changes minimal and explain what you did.');
    expect(m[3]).toMatchObject({
      content: null,
      reasoning_content: '**Inspecting the list command**\n\nI need to see how todos.json is loaded before changing anything.',
      tool_calls: [
        { id: 'call_list_src', function: { name: 'shell' } },
        { id: 'call_todos_json', function: { name: 'shell' } },
      ],
      usage: { input_tokens: 5210, cached_input_tokens: 3072, output_tokens: 188, reasoning_output_tokens: 64, total_tokens: 5398 },
    });
    expect(m[6]).toMatchObject({
      content: "todos.json is empty, so JSON.parse throws. I'll treat an empty file as an empty list.",
      reasoning_content: "**Handling the empty file**\n\nJSON.parse('') throws; treat an empty file as an empty list.",
      tool_calls: [{ id: 'call_patch_list', function: { name: 'apply_patch' } }],
    });
    expect((m[6] as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0].function.arguments).toMatch(/^\*\*\* Begin Patch\n/);
    expect(m[9]).toEqual({ role: 'tool', tool_call_id: 'call_npm_test', content: 'npm ERR! missing script: test', is_error: true });
    expect(t.transcript.metadata).toMatchObject({
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      cwd: '/home/dev/todo-cli',
      cliVersion: '0.50.0',
      models: ['gpt-5-codex'],
      git: { branch: 'main' },
    });
  });

  it('counts calls and outputs as in the file', async () => {
    for (const file of [BASIC, COMPACTED]) {
      const raw = rawJsonl(file)
        .filter((r) => r.type === 'response_item')
        .map((r) => (r.payload as { type: string }).type);
      const calls = raw.filter((t) => t === 'function_call' || t === 'custom_tool_call' || t === 'local_shell_call').length;
      const [t] = transcriptsOf(await collect(readCodex(file, READ)));
      expect(t.transcript.messages.filter(isAssistant).reduce((n, x) => n + (x.tool_calls?.length ?? 0), 0)).toBe(calls);
      expect(findViolations(t.transcript.messages)).toEqual([]);
    }
  });

  it("keeps Codex's own compaction, repairs the interrupted call, and skips web search and ghost snapshots", async () => {
    const items = await collect(readCodex(COMPACTED, READ));
    expect(accountedUnits(items)).toBe(lineCount(COMPACTED));
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([
      [7, 'record:response_item/web_search_call'],
      [8, 'record:response_item/ghost_snapshot'],
      [10, 'record:event_msg/turn_aborted'],
      [13, 'record:event_msg/context_compacted'],
      [15, 'blank'],
    ]);
    const [t] = transcriptsOf(items);
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    const m = t.transcript.messages;
    expect(m[4]).toEqual({ role: 'tool', tool_call_id: 'call_dev_server', content: NO_RESULT_TEXT });
    expect(m[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_health_curl', function: { name: 'local_shell' } }] });
    expect(JSON.parse((m[1] as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0].function.arguments)).toMatchObject({
      type: 'exec',
      timeout_ms: 10000,
    });
    expect(m[0]).toMatchObject({
      role: 'user',
      content: [{ type: 'text' }, { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } }],
    });
    const compactions = t.transcript.metadata?.compactions as { summaryIndex: number; replacementHistoryItems: number }[];
    expect(compactions).toEqual([{ summaryIndex: 6, replacementHistoryItems: 2 }]);
    expect(m[6]).toMatchObject({ role: 'user', is_compact_summary: true });
    expect(t.transcript.metadata).toMatchObject({ models: ['gpt-5', 'gpt-5-codex'], encryptedReasoning: 1 });
  });

  it('reports a line without a payload as E_SCHEMA and a broken line as E_JSON, and converts the rest', async () => {
    const lines = rawJsonl(BASIC).map((r) => JSON.stringify(r));
    lines[2] = '{"timestamp":"2025-10-29T00:59:38.319Z","type":"response_item"}';
    lines[5] = '{"timestamp": 1,';
    const items = await collect(readCodex(scratchFile('rollout-bad.jsonl', `${lines.join('\n')}\n`), READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message.slice(0, 30)])).toEqual([
      [3, 'E_SCHEMA', 'payload: expected an object'],
      [6, 'E_JSON', expect.any(String)],
    ]);
    expect(transcriptsOf(items)).toHaveLength(1);
    expect(accountedUnits(items)).toBe(lines.length);
  });
});
