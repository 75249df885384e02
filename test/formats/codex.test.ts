import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCodex } from '../../src/formats/codex.js';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { opaqueCompactions, referenceCompactions } from '../../src/retention/reference-compaction.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { isAssistant } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  CODEX_FIXTURES,
  expectCompactRestores,
  READ,
  accountedUnits,
  collect,
  errorsOf,
  lineCount,
  rawJsonl,
  scratchFile,
  skippedOf,
  transcriptsOf,
} from './helpers.js';

// Fixtures built from Codex's source (see test/fixtures/codex/SOURCE.md): no real rollout file was available under a
// licence that allows copying.
const BASIC = join(CODEX_FIXTURES, 'rollout-2025-10-29T00-59-38-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl');
const COMPACTED = join(CODEX_FIXTURES, 'rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl');
/** The 2025 layout: no `{type, payload}` wrapper, a bare session meta first, `{"record_type":"state"}` lines. */
const LEGACY = join(CODEX_FIXTURES, 'rollout-2025-08-20T13-20-47-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl');
/** A remote compaction: `compacted` with an empty message and a replacement history ending in an encrypted summary. */
const REMOTE = join(CODEX_FIXTURES, 'rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl');

/** The response items of a rollout read straight from its lines: the payloads, or the bare items of the 2025 layout. */
function responseItems(file: string): { type: string }[] {
  return rawJsonl(file)
    .map((r) => (r.type === 'response_item' ? r.payload : !('payload' in r) && typeof r.type === 'string' ? r : undefined))
    .filter((r): r is { type: string } => r !== undefined);
}

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
    // The web search and the answer after it are one response: one request.
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
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
    expect(m[9]).toEqual({
      role: 'tool',
      tool_call_id: 'call_npm_test',
      content: 'npm ERR! missing script: test',
      is_error: true,
      timestamp: '2025-10-29T00:59:49.000Z',
    });
    expect(t.transcript.metadata).toMatchObject({
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      cwd: '/home/dev/todo-cli',
      cliVersion: '0.50.0',
      models: ['gpt-5-codex'],
      git: { branch: 'main' },
    });
  });

  it('counts calls and outputs as in the file, in both layouts, a web search being a call answered by itself', async () => {
    for (const file of [BASIC, COMPACTED, LEGACY, REMOTE]) {
      const raw = responseItems(file).map((i) => i.type);
      const calls = raw.filter((t) => ['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call'].includes(t)).length;
      const outputs = raw.filter((t) => ['function_call_output', 'custom_tool_call_output', 'web_search_call'].includes(t)).length;
      const [t] = transcriptsOf(await collect(readCodex(file, READ)));
      const m = t.transcript.messages;
      expect(
        m.filter(isAssistant).reduce((n, x) => n + (x.tool_calls?.length ?? 0), 0),
        file,
      ).toBe(calls);
      expect(m.filter((x) => x.role === 'tool').length, file).toBe(outputs + (t.repairs.missingResultFilled ?? 0));
      expect(findViolations(m), file).toEqual([]);
    }
  });

  it('gives every rollout back byte for byte after compacting and restoring', async () => {
    const all = transcriptsOf(await collect(readInputs([CODEX_FIXTURES], READ))).map((i) => i.transcript);
    expect(all).toHaveLength(4);
    // A window small enough that the fixtures' tool outputs get compacted.
    expect(expectCompactRestores(all, 500)).toBeGreaterThan(0);
  });

  it('reads a 2025 rollout: the bare session meta, bare items, state lines skipped', async () => {
    expect(await detectFormat(LEGACY, READ)).toEqual({ ok: true, format: 'codex', layout: 'jsonl' });
    const items = await collect(readCodex(LEGACY, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(LEGACY));
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([
      [2, 'record:state'],
      [5, 'record:state'],
      [13, 'record:state'],
      [18, 'record:state'],
    ]);
    const [t] = transcriptsOf(items);
    expect(t.transcript.id).toBe('5973b6c0-94b8-487b-a530-2aeb6098ae0e');
    expect(t.repairs).toEqual({});
    expect(t.transcript.metadata).toMatchObject({ sessionId: '5973b6c0-94b8-487b-a530-2aeb6098ae0e', git: { branch: 'main' }, encryptedReasoning: 1 });
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
    expect(m[8].content).toMatch(/^Fixed: src\/store\.js/);
    expect(m.filter(isAssistant).flatMap((x) => (x.tool_calls ?? []).map((c) => [c.id, c.function.name]))).toEqual([
      ['call_store', 'shell'],
      ['call_patch', 'apply_patch'],
      ['call_test', 'local_shell'],
      ['ws_68a5cb44e2f08190', 'web_search'],
    ]);
    expect(m[4]).toMatchObject({
      content: "An empty todos.json makes JSON.parse throw. I'll load it as an empty list.",
      reasoning_content: expect.stringMatching(/^\*\*Handling the empty file\*\*/),
    });
    expect(m[9]).toEqual({ role: 'tool', tool_call_id: 'ws_68a5cb44e2f08190', name: 'web_search', content: '', unrecorded: true });
  });

  it('takes the later 2025 session meta (cwd, originator, cli_version, model) as metadata', async () => {
    const lines = [
      '{"id":"0199323e-1c1b-7e52-a5f0-3b0c9d8e7f60","timestamp":"2025-09-13T01:00:00.000Z","cwd":"/home/dev/app","originator":"codex_cli_rs","cli_version":"0.34.0","model":"gpt-5"}',
      '{"record_type":"state"}',
      '{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}',
    ];
    const file = scratchFile('rollout-legacy-meta.jsonl', `${lines.join('\n')}\n`);
    expect(await detectFormat(file, READ)).toMatchObject({ ok: true, format: 'codex' });
    const [t] = transcriptsOf(await collect(readCodex(file, READ)));
    expect(t.transcript.metadata).toMatchObject({
      sessionId: '0199323e-1c1b-7e52-a5f0-3b0c9d8e7f60',
      cwd: '/home/dev/app',
      cliVersion: '0.34.0',
      models: ['gpt-5'],
    });
    expect(t.transcript.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it("makes a remote compaction's replacement history the context from its point on, and names its encrypted summary", async () => {
    const items = await collect(readCodex(REMOTE, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(REMOTE));
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    const compactions = t.transcript.metadata?.compactions as Record<string, number | boolean>[];
    expect(compactions).toEqual([{ index: 10, replacementFrom: 10, replacementTo: 13, replacementHistoryItems: 4, encryptedSummary: true }]);
    // The three messages the source kept, each as the model saw it again after the compaction.
    const kept = m.slice(10, 13);
    expect(kept.map((x) => [x.role, (x as Record<string, unknown>).is_compact_summary])).toEqual([
      ['user', true],
      ['assistant', true],
      ['user', true],
    ]);
    expect(kept.map((x) => x.content)).toEqual([m[1].content, m[6].content, m[7].content]);
    const [point] = sourceCompactionPoints(t.transcript);
    expect(point).toMatchObject({ call: 4, callIndex: 13, index: 10, kinds: ['compacted'], opaque: true });
    expect(point.kept).toEqual(kept);
    expect(opaqueCompactions(t.transcript)).toEqual([{ index: 10, replacementHistoryItems: 4 }]);
    // No empty summary is left for eval to score.
    expect(referenceCompactions(t.transcript)).toEqual([]);
  });

  it("eval names the remote compaction's summary as opaque; simulate replays the replacement history at its point", async () => {
    const dir = tempDir('codex-eval');
    const ev = await runMain(['eval', REMOTE, '--out', join(dir, 'eval')]);
    expect(ev.code, ev.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'eval', 'eval.json'), 'utf8')) as { reference: { spans: number; opaque?: unknown } };
    expect(report.reference.spans).toBe(0);
    expect(report.reference.opaque).toEqual([{ transcript: '019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90', index: 10, replacementHistoryItems: 4 }]);
    expect(readFileSync(join(dir, 'eval', 'eval.md'), 'utf8')).toContain('1 compactions of the source in 1 transcripts have an opaque summary');
    const sim = await runMain(['simulate', REMOTE, '--policy', 'source:auto', '--out', join(dir, 'sim')]);
    expect(sim.code, sim.stderr).toBe(0);
    const points = (JSON.parse(readFileSync(join(dir, 'sim', 'simulate.json'), 'utf8')) as { sourcePoints: Record<string, unknown> }).sourcePoints;
    expect(points).toEqual({ transcripts: 1, points: 1, withSummary: 1, byKind: { compacted: 1 }, opaque: 1 });
    expect(readFileSync(join(dir, 'sim', 'simulate.md'), 'utf8')).toContain("1 of them opaque: Codex's summary is encrypted");
  });

  it("keeps Codex's own compaction, repairs the interrupted call, and skips ghost snapshots", async () => {
    const items = await collect(readCodex(COMPACTED, READ));
    expect(accountedUnits(items)).toBe(lineCount(COMPACTED));
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([
      [8, 'record:response_item/ghost_snapshot'],
      [13, 'record:event_msg/context_compacted'],
      [15, 'blank'],
    ]);
    const [t] = transcriptsOf(items);
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    const m = t.transcript.messages;
    // The web search and the call after it are one response: one request, whose interrupted call gets the repair.
    expect(m[5]).toEqual({ role: 'tool', tool_call_id: 'call_dev_server', content: NO_RESULT_TEXT });
    expect(m[3]).toMatchObject({
      tool_calls: [
        { id: 'web_search_1', function: { name: 'web_search' } },
        { id: 'call_dev_server', function: { name: 'shell' } },
      ],
    });
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
    expect(compactions).toEqual([{ summaryIndex: 7, replacementHistoryItems: 2 }]);
    expect(m[7]).toMatchObject({ role: 'user', is_compact_summary: true });
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
