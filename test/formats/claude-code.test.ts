import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import type { InputItem } from '../../src/formats/types.js';
import { type AssistantMessage, isAssistant, isTool, isUser } from '../../src/model/message.js';
import { parseTranscript } from '../../src/model/parse.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import {
  READ,
  BUNDLED_CLAUDE_CODE,
  SESSION_SHARE,
  SPOTTER,
  accountedUnits,
  collect,
  errorsOf,
  filesUnder,
  lineCount,
  rawJsonl,
  scratchFile,
  skippedOf,
  transcriptsOf,
} from './helpers.js';
import { hasCorpus } from '../helpers/corpus.js';

type Raw = Record<string, unknown> & { message?: { id?: string; content?: unknown; usage?: unknown; model?: string } };
type Block = { type: string; [k: string]: unknown };

const blocks = (r: Raw): Block[] => (Array.isArray(r.message?.content) ? (r.message.content as Block[]) : []);
const REAL = 'Claude Code adapter on every real session (spotter, session-share)';
const withCorpus = hasCorpus(REAL);
const spotterFiles = withCorpus ? filesUnder(SPOTTER, /\.jsonl$/) : [];
const sessionShareFiles = withCorpus ? filesUnder(SESSION_SHARE, /\.jsonl$/) : [];
const allFiles = [...spotterFiles, ...sessionShareFiles];

/** What the source says, counted straight from the raw records. */
function rawCounts(files: string[]) {
  let toolUse = 0;
  let toolResult = 0;
  let thinking = 0;
  let user = 0;
  let assistant = 0;
  for (const f of files) {
    for (const r of rawJsonl(f) as Raw[]) {
      if (r.type === 'user') user++;
      if (r.type === 'assistant') assistant++;
      for (const b of blocks(r)) {
        if (b.type === 'tool_use') toolUse++;
        if (b.type === 'tool_result') toolResult++;
        if (b.type === 'thinking' && b.thinking !== '') thinking++;
      }
    }
  }
  return { toolUse, toolResult, thinking, user, assistant };
}

const converted = new Map<string, InputItem[]>();
beforeAll(async () => {
  for (const f of allFiles) converted.set(f, await collect(readClaudeCode(f, READ)));
});

describe.skipIf(!withCorpus)(REAL, () => {
  it('the raw files hold what SOURCE.md says', () => {
    expect(rawCounts(spotterFiles)).toEqual({ toolUse: 1136, toolResult: 1136, thinking: 75, user: 1208, assistant: 1824 });
    expect(rawCounts(sessionShareFiles)).toMatchObject({ toolUse: 14, toolResult: 14, thinking: 9, user: 38, assistant: 43 });
  });

  it('gives one valid transcript per session file, with no repairs needed and no errors', () => {
    for (const f of allFiles) {
      const items = converted.get(f)!;
      expect(errorsOf(items), f).toEqual([]);
      const ts = transcriptsOf(items);
      expect(ts, f).toHaveLength(1);
      expect(findViolations(ts[0].transcript.messages), f).toEqual([]);
      expect(parseTranscript(ts[0].transcript).ok, f).toBe(true);
      expect(ts[0].repairs, f).toEqual({});
    }
  });

  it('accounts for every line exactly once', () => {
    for (const f of allFiles) expect(accountedUnits(converted.get(f)!), f).toBe(lineCount(f));
  });

  it('merges the records of one reply (same message.id) into one assistant message with its calls, reasoning, usage and model', () => {
    let replies = 0;
    for (const f of allFiles) {
      const raw = (rawJsonl(f) as Raw[]).filter((r) => r.type === 'assistant');
      const order: string[] = [];
      const byId = new Map<string, Raw[]>();
      for (const r of raw) {
        const id = r.message!.id!;
        if (!byId.has(id)) {
          byId.set(id, []);
          order.push(id);
        }
        byId.get(id)!.push(r);
      }
      const assistants = transcriptsOf(converted.get(f)!)[0].transcript.messages.filter(isAssistant) as AssistantMessage[];
      expect(assistants.length, f).toBe(order.length);
      order.forEach((id, k) => {
        const records = byId.get(id)!;
        const all = records.flatMap(blocks);
        const m = assistants[k];
        expect(m.tool_calls?.map((c) => c.id) ?? [], `${f} ${id}`).toEqual(all.filter((b) => b.type === 'tool_use').map((b) => b.id));
        expect(m.tool_calls?.map((c) => c.function.arguments) ?? []).toEqual(all.filter((b) => b.type === 'tool_use').map((b) => JSON.stringify(b.input)));
        const thinking = all.filter((b) => b.type === 'thinking' && b.thinking !== '').map((b) => b.thinking as string);
        expect(m.reasoning_content).toBe(thinking.length > 0 ? thinking.join('\n\n') : undefined);
        const texts = all.filter((b) => b.type === 'text').map((b) => b.text as string);
        expect(m.content).toEqual(texts.length === 0 ? null : texts.length === 1 ? texts[0] : texts.map((text) => ({ type: 'text', text })));
        expect(m.usage).toEqual(records.at(-1)!.message!.usage);
        expect(m.model).toBe(records.at(-1)!.message!.model);
      });
      replies += order.length;
    }
    expect(replies).toBeGreaterThan(900); // 1,867 assistant records are far fewer replies
  });

  it('turns every tool_result block into a tool message, with is_error kept', () => {
    for (const f of allFiles) {
      const results = (rawJsonl(f) as Raw[]).flatMap(blocks).filter((b) => b.type === 'tool_result');
      const tools = transcriptsOf(converted.get(f)!)[0].transcript.messages.filter(isTool);
      expect(
        tools.map((t) => t.tool_call_id),
        f,
      ).toEqual(results.map((b) => b.tool_use_id));
      expect(tools.map((t) => t.is_error)).toEqual(results.map((b) => b.is_error));
    }
  });

  it('converts each real folder to exactly as many tool calls as its sessions hold distinct tool_use ids', () => {
    for (const files of [spotterFiles, sessionShareFiles]) {
      let distinct = 0;
      let calls = 0;
      for (const f of files) {
        const ids = new Set<unknown>();
        for (const r of rawJsonl(f) as Raw[]) for (const b of blocks(r)) if (b.type === 'tool_use') ids.add(b.id);
        distinct += ids.size;
        for (const m of transcriptsOf(converted.get(f)!)[0].transcript.messages) if (isAssistant(m)) calls += m.tool_calls?.length ?? 0;
      }
      expect(calls).toBe(distinct);
    }
  });

  it('counts, in total, 1,136 tool calls, 1,136 tool results and 75 reasoning blocks for spotter', () => {
    let calls = 0;
    let results = 0;
    let reasoningMessages = 0;
    for (const f of spotterFiles) {
      for (const m of transcriptsOf(converted.get(f)!)[0].transcript.messages) {
        if (isTool(m)) results++;
        if (isAssistant(m)) {
          calls += m.tool_calls?.length ?? 0;
          if (m.reasoning_content) reasoningMessages++;
        }
      }
    }
    expect({ calls, results }).toEqual({ calls: 1136, results: 1136 });
    // Each of the 75 thinking blocks is the reasoning of a different reply in these files.
    expect(reasoningMessages).toBe(75);
  });

  it('keeps user turns as user messages, and nothing else becomes one', () => {
    for (const f of allFiles) {
      const users = (rawJsonl(f) as Raw[]).filter(
        (r) => r.type === 'user' && (typeof r.message!.content === 'string' || blocks(r).some((b) => b.type !== 'tool_result')),
      );
      const messages = transcriptsOf(converted.get(f)!)[0].transcript.messages;
      expect(messages.filter(isUser).length, f).toBe(users.length);
      expect(messages.length).toBe(messages.filter(isUser).length + messages.filter(isTool).length + messages.filter(isAssistant).length);
    }
  });

  it('skips the records that are not conversation, counted by type exactly as in the files', () => {
    const expected: Record<string, number> = {};
    const actual: Record<string, number> = {};
    for (const f of allFiles) {
      for (const r of rawJsonl(f)) {
        if (r.type === 'user' || r.type === 'assistant' || (r.type === 'system' && r.subtype === 'compact_boundary')) continue;
        const reason = r.type === 'system' ? `record:system/${String(r.subtype)}` : `record:${String(r.type)}`;
        expected[reason] = (expected[reason] ?? 0) + 1;
      }
      for (const s of skippedOf(converted.get(f)!)) actual[s.reason] = (actual[s.reason] ?? 0) + 1;
    }
    expect(actual).toEqual(expected);
    expect(actual['record:progress']).toBe(6966 + 17);
  });

  it("lists Claude Code's own 5 compactions with their summary message in metadata", () => {
    const compactions = spotterFiles.flatMap((f) => {
      const t = transcriptsOf(converted.get(f)!)[0].transcript;
      return ((t.metadata?.compactions ?? []) as { summaryIndex?: number; boundaryIndex?: number; trigger?: string }[]).map((c) => ({ t, c }));
    });
    expect(compactions).toHaveLength(5);
    for (const { t, c } of compactions) {
      expect(t.messages[c.summaryIndex!]).toMatchObject({ role: 'user', is_compact_summary: true });
      expect(c.boundaryIndex).toBe(c.summaryIndex);
      expect(['auto', 'manual']).toContain(c.trigger);
    }
    const marked = spotterFiles.flatMap((f) => transcriptsOf(converted.get(f)!)[0].transcript.messages.filter((m) => m.is_compact_summary === true));
    expect(marked).toHaveLength(5);
  });

  it('links subagent files to their session: parent session id, agent id, sidechain, and the Task call that started them', () => {
    const subagentFiles = allFiles.filter((f) => basename(dirname(f)) === 'subagents');
    expect(subagentFiles).toHaveLength(18);
    for (const f of subagentFiles) {
      const session = basename(dirname(dirname(f)));
      const agentId = basename(f, '.jsonl').replace(/^agent-/, '');
      const t = transcriptsOf(converted.get(f)!)[0].transcript;
      expect(t.id).toBe(`${session}:agent-${agentId}`);
      expect(t.metadata).toMatchObject({ parentSessionId: session, agentId, isSidechain: true });
      const main = allFiles.find((m) => basename(m) === `${session}.jsonl`);
      if (!main || agentId.startsWith('acompact')) continue; // compaction runs are not started by a Task call
      const links = transcriptsOf(converted.get(main)!)[0].transcript.metadata?.subagents as { agentId: string; toolUseId?: string }[];
      const link = links.find((l) => l.agentId === agentId);
      expect(link, `${session} -> ${agentId}`).toBeDefined();
      const call = transcriptsOf(converted.get(main)!)[0]
        .transcript.messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []) : []))
        .find((c) => c.id === link!.toolUseId);
      expect(call?.function.name).toBe('Task');
    }
  });

  it('keeps sessionId, cwd, gitBranch, version and models in metadata', () => {
    const t = transcriptsOf(converted.get(spotterFiles.find((f) => f.endsWith('258c7280-ae70-4798-800f-63464d01a85d.jsonl'))!)!)[0].transcript;
    expect(t.id).toBe('258c7280-ae70-4798-800f-63464d01a85d');
    expect(t.metadata).toMatchObject({
      sessionId: '258c7280-ae70-4798-800f-63464d01a85d',
      cwd: '/home/USER/projects/spotter-worktrees/spotter-gqc',
      gitBranch: 'spotter-gqc',
      version: '2.1.39',
      isSidechain: false,
    });
    expect(t.metadata?.models).toContain('claude-opus-4-6');
  });
});

const SHORT = `${BUNDLED_CLAUDE_CODE}/short.jsonl`;
const shortLines = readFileSync(SHORT, 'utf8').split('\n');

describe('Claude Code adapter on a small real session (short.jsonl)', () => {
  it('builds exactly the expected messages', async () => {
    const items = await collect(readClaudeCode(SHORT, READ));
    const t = transcriptsOf(items)[0];
    expect(t.lines).toBe(9);
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([
      [1, 'record:file-history-snapshot'],
      [2, 'record:progress'],
      [3, 'record:progress'],
      [9, 'record:progress'],
      [14, 'record:system/local_command'],
      [15, 'record:system/local_command'],
    ]);
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    const a = m[1] as AssistantMessage;
    expect(Array.isArray(a.content) && a.content.length).toBe(2); // two text blocks of one reply
    expect(a.tool_calls).toHaveLength(2);
    expect(typeof a.reasoning_content).toBe('string');
    expect(m[4]).toMatchObject({ role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] });
  });

  it('reports a malformed line in the middle as E_JSON at that line and byte offset, and converts the rest', async () => {
    const broken = [...shortLines];
    broken[6] = '{"type":"assistant","message": {';
    const file = scratchFile('short-broken.jsonl', broken.join('\n'));
    const items = await collect(readClaudeCode(file, READ));
    const offset = Buffer.byteLength(shortLines.slice(0, 6).join('\n')) + 1;
    expect(errorsOf(items).map((e) => [e.record.line, e.record.byteOffset, e.record.code])).toEqual([[7, offset, 'E_JSON']]);
    const t = transcriptsOf(items)[0];
    expect(t.lines).toBe(8);
    expect(t.transcript.messages.map((x) => x.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(accountedUnits(items)).toBe(15);
  });

  it('reports a record that fails the schema as E_SCHEMA with the path', async () => {
    const bad = [...shortLines];
    const record = JSON.parse(bad[4]) as Raw;
    record.message!.content = 'not blocks';
    bad[4] = JSON.stringify(record);
    const items = await collect(readClaudeCode(scratchFile('short-schema.jsonl', bad.join('\n')), READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message])).toEqual([
      [5, 'E_SCHEMA', 'message.content: Invalid input: expected array, received string'],
    ]);
  });

  it('repairs a session cut off after a tool use: the call gets a "no result recorded" result, counted', async () => {
    const cut = scratchFile('short-cut.jsonl', `${shortLines.slice(0, 10).join('\n')}\n`);
    const items = await collect(readClaudeCode(cut, READ));
    const t = transcriptsOf(items)[0];
    expect(t.repairs).toEqual({ missingResultFilled: 2 });
    expect(t.transcript.messages.slice(2).map((x) => (isTool(x) ? x.content : x.role))).toEqual([NO_RESULT_TEXT, NO_RESULT_TEXT]);
    expect(findViolations(t.transcript.messages)).toEqual([]);
  });

  it('drops an orphan tool result into metadata.droppedToolResults, counted, never lost', async () => {
    const orphan = {
      type: 'user',
      uuid: 'o1',
      parentUuid: null,
      sessionId: 's',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'late output' }] },
    };
    const items = await collect(readClaudeCode(scratchFile('orphan.jsonl', `${JSON.stringify(orphan)}\n${shortLines[3]}\n`), READ));
    const t = transcriptsOf(items)[0];
    expect(t.repairs).toEqual({ orphanResultDropped: 1 });
    expect(t.transcript.messages.map((m) => m.role)).toEqual(['user']);
    expect(t.transcript.metadata?.droppedToolResults).toEqual([{ role: 'tool', tool_call_id: 'toolu_gone', content: 'late output' }]);
  });

  it('reports an unterminated, incomplete last line as E_TRUNCATED', async () => {
    const file = scratchFile('short-truncated.jsonl', `${shortLines.slice(0, 5).join('\n')}\n${shortLines[5].slice(0, 40)}`);
    const items = await collect(readClaudeCode(file, READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code])).toEqual([[6, 'E_TRUNCATED']]);
    expect(transcriptsOf(items)).toHaveLength(1);
  });

  it('makes no transcript of a file with only summary and snapshot records, and skips each of them', async () => {
    const lines = [
      JSON.stringify({ type: 'summary', summary: 'Fix the build', leafUuid: 'u1' }),
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'm1', snapshot: {}, isSnapshotUpdate: false }),
      '',
    ];
    const items = await collect(readClaudeCode(scratchFile('summary-only.jsonl', `${lines.join('\n')}\n`), READ));
    expect(items.map((i) => (i.kind === 'skipped' ? i.reason : i.kind))).toEqual(['record:summary', 'record:file-history-snapshot', 'blank']);
  });
});

describe('Claude Code ordering and placement', () => {
  const rec = (r: Record<string, unknown>) => JSON.stringify({ sessionId: 's1', ...r });
  const asst = (uuid: string, parent: string | null, id: string, block: unknown) =>
    rec({ type: 'assistant', uuid, parentUuid: parent, message: { id, role: 'assistant', content: [block] } });
  const user = (uuid: string, parent: string | null, content: unknown, extra: Record<string, unknown> = {}) =>
    rec({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content }, ...extra });

  it('keeps tool results right after their reply when a hook message and the second call of the reply come between', async () => {
    const lines = [
      user('u1', null, 'run both'),
      asst('a1', 'u1', 'msg_1', { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }),
      user('r1', 'a1', [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }]),
      user('h1', 'r1', '<system-reminder>hook output</system-reminder>', { isMeta: true }),
      asst('a2', 'h1', 'msg_1', { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'pwd' } }),
      user('r2', 'a2', [{ type: 'tool_result', tool_use_id: 't2', content: '/tmp', is_error: false }]),
      asst('a3', 'r2', 'msg_2', { type: 'text', text: 'done' }),
    ];
    const items = await collect(readClaudeCode(scratchFile('placement.jsonl', `${lines.join('\n')}\n`), READ));
    const t = transcriptsOf(items)[0];
    expect(t.repairs).toEqual({});
    expect(t.transcript.messages).toEqual([
      { role: 'user', content: 'run both' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } },
          { id: 't2', type: 'function', function: { name: 'Bash', arguments: '{"command":"pwd"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 't2', content: '/tmp', is_error: false },
      { role: 'user', content: '<system-reminder>hook output</system-reminder>', is_meta: true },
      { role: 'assistant', content: 'done' },
    ]);
  });

  it('follows parentUuid when a record comes before its parent in the file, and counts the move', async () => {
    const lines = [
      user('u1', null, 'question'),
      asst('a2', 'a1', 'msg_2', { type: 'text', text: 'second answer' }), // its parent comes next
      asst('a1', 'u1', 'msg_1', { type: 'text', text: 'first answer' }),
    ];
    const items = await collect(readClaudeCode(scratchFile('parent-order.jsonl', `${lines.join('\n')}\n`), READ));
    const t = transcriptsOf(items)[0];
    expect(t.transcript.messages.map((m) => m.content)).toEqual(['question', 'first answer', 'second answer']);
    expect(t.repairs).toEqual({ reorderedByParent: 1 });
  });
});
