import { join } from 'node:path';
import { ROOT } from './paths.js';
import { runStoreWriter } from './sqlite-writer.js';

const WRITER = join(ROOT, 'test', 'fixtures', 'crush', 'write_store.py');

/** A message part as Crush stores it (internal/message/message.go `marshalParts`): `{type, data}`. */
export type CrushPart = { type: string; data: Record<string, unknown> };

export interface CrushMessage {
  id: string;
  role: 'user' | 'assistant' | 'tool' | 'system';
  parts: CrushPart[];
  model?: string;
  provider?: string;
  summary?: boolean;
  /** Seconds since the epoch (`strftime('%s', 'now')` in messages.sql CreateMessage). */
  createdAt: number;
}

export interface CrushSession {
  id: string;
  parentSessionId?: string;
  title: string;
  createdAt: number;
  /** What Crush keeps of usage: the last request's prompt and completion tokens, and the session's running cost. */
  promptTokens: number;
  completionTokens: number;
  cost: number;
  summaryMessageId?: string;
  messages: CrushMessage[];
}

export interface CrushLayout {
  /** Messages (in order, over all sessions) from this index on are committed to the WAL only. */
  walFrom?: number;
  uncommittedTail?: boolean;
  /** A migration Crush has and this reader does not know, recorded as applied. */
  extraVersion?: number;
}

/** Writes Crush sessions into a project store through test/fixtures/crush/write_store.py (WAL mode, writer killed). */
export function writeCrushDatabase(file: string, sessions: readonly CrushSession[], layout: CrushLayout = {}): void {
  const rows = {
    sessions: [] as unknown[][],
    messages: [] as unknown[][],
    walFrom: 0,
    tail: layout.uncommittedTail === true,
    extraVersion: layout.extraVersion,
  };
  for (const s of sessions) {
    const last = s.messages.at(-1)?.createdAt ?? s.createdAt;
    rows.sessions.push([s.id, s.parentSessionId ?? null, s.title, s.createdAt, last, s.promptTokens, s.completionTokens, s.cost, s.summaryMessageId ?? null]);
    for (const m of s.messages)
      rows.messages.push([
        m.id,
        s.id,
        m.role,
        JSON.stringify(m.parts),
        m.model ?? '',
        m.provider ?? null,
        m.summary === true ? 1 : 0,
        m.createdAt,
        m.createdAt,
        m.role === 'assistant' ? m.createdAt : null,
      ]);
  }
  rows.walFrom = layout.walFrom ?? rows.messages.length;
  runStoreWriter(WRITER, file, 'crush', rows);
}

const T0 = Date.parse('2026-02-03T10:00:00Z') / 1000;
const stop = (time: number): CrushPart => ({ type: 'finish', data: { reason: 'stop', time } });
const text = (t: string): CrushPart => ({ type: 'text', data: { text: t } });
const call = (id: string, name: string, input: unknown): CrushPart => ({
  type: 'tool_call',
  data: { id, name, input: JSON.stringify(input), provider_executed: false, finished: true },
});
const result = (id: string, name: string, content: string, isError = false): CrushPart => ({
  type: 'tool_result',
  data: { tool_call_id: id, name, content, data: '', mime_type: '', metadata: '', is_error: isError },
});
const done = (reason: string, time: number): CrushPart => ({ type: 'finish', data: { reason, time } });
const sonnet = { model: 'claude-sonnet-4-5-20250929', provider: 'anthropic' };

/** A 1x1 PNG, as an attachment's bytes (BinaryContent has no JSON tags: `Path`, `MIMEType`, `Data` as base64). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * Crush's fixture sessions, written from its types (internal/message/content.go, message.go; internal/agent/agent.go):
 * a session with a tool error, thinking, a summary (Crush's compaction: `is_summary_message`, the session's
 * `summary_message_id`) and work after it with an image attached; and a sub-agent session its `agent` tool started.
 */
export function crushFixtureSessions(): [CrushSession, CrushSession] {
  const main = '5f0c2a8e-3b1d-4c7e-9a26-8d4f1e7b3c90';
  const summary = 'b7e1d3f5-0a2c-4e6b-8d9f-1a3c5e7f9b20';
  const m = (n: number) => `0c4e6a8b-${String(n).padStart(4, '0')}-4d2f-9b1a-3e5c7d9f1a2b`;
  const first: CrushSession = {
    id: main,
    title: 'Fix crash on empty todos.json',
    createdAt: T0,
    promptTokens: 9_120,
    completionTokens: 212,
    cost: 0.0841,
    summaryMessageId: summary,
    messages: [
      { id: m(1), role: 'user', createdAt: T0, parts: [text('The todo list crashes when todos.json is empty. Find out why and fix it.'), stop(T0)] },
      {
        id: m(2),
        role: 'assistant',
        ...sonnet,
        createdAt: T0 + 4,
        parts: [
          {
            type: 'reasoning',
            data: { thinking: 'Look at how list reads the file.', signature: 'EqQBCkYIBxgC', thought_signature: '', tool_id: '', responses_data: null },
          },
          text("I'll look at the list command."),
          call('toolu_01A', 'view', { file_path: '/home/dev/todo-cli/src/list.ts' }),
          done('tool_use', T0 + 6),
        ],
      },
      {
        id: m(3),
        role: 'tool',
        createdAt: T0 + 7,
        parts: [
          result(
            'toolu_01A',
            'view',
            "<file>\n1|import { readFileSync } from 'node:fs';\n2|export const list = (p: string) => JSON.parse(readFileSync(p, 'utf8'));\n</file>",
          ),
          stop(T0 + 7),
        ],
      },
      {
        id: m(4),
        role: 'assistant',
        ...sonnet,
        createdAt: T0 + 9,
        parts: [
          text('An empty file makes JSON.parse throw.'),
          call('toolu_01B', 'edit', { file_path: '/home/dev/todo-cli/src/list.ts', old_string: 'JSON.parse(x)', new_string: 'x' }),
          done('tool_use', T0 + 11),
        ],
      },
      { id: m(5), role: 'tool', createdAt: T0 + 12, parts: [result('toolu_01B', 'edit', 'old_string not found in file', true), stop(T0 + 12)] },
      {
        id: m(6),
        role: 'assistant',
        ...sonnet,
        createdAt: T0 + 15,
        parts: [
          text('Retrying with the exact line.'),
          call('toolu_01C', 'edit', {
            file_path: '/home/dev/todo-cli/src/list.ts',
            old_string: "JSON.parse(readFileSync(p, 'utf8'))",
            new_string: "(readFileSync(p, 'utf8').trim() === '' ? [] : JSON.parse(readFileSync(p, 'utf8')))",
          }),
          done('tool_use', T0 + 17),
        ],
      },
      { id: m(7), role: 'tool', createdAt: T0 + 18, parts: [result('toolu_01C', 'edit', '<result>File edited</result>'), stop(T0 + 18)] },
      {
        id: m(8),
        role: 'assistant',
        ...sonnet,
        createdAt: T0 + 21,
        parts: [text('Fixed: an empty todos.json now reads as an empty list.'), done('end_turn', T0 + 21)],
      },
      {
        id: summary,
        role: 'assistant',
        ...sonnet,
        summary: true,
        createdAt: T0 + 600,
        parts: [
          text('**Summary**: the todo CLI crashed on an empty todos.json because `list` called JSON.parse on it; `list` now returns [] for an empty file.'),
          done('end_turn', T0 + 610),
        ],
      },
      {
        id: m(10),
        role: 'user',
        createdAt: T0 + 700,
        parts: [
          text('Now add a test like the one in this screenshot.'),
          { type: 'binary', data: { Path: '/home/dev/shot.png', MIMEType: 'image/png', Data: PNG } },
          stop(T0 + 700),
        ],
      },
      {
        id: m(11),
        role: 'assistant',
        ...sonnet,
        createdAt: T0 + 704,
        parts: [text('Added test/list.test.ts covering an empty file.'), done('end_turn', T0 + 706)],
      },
    ],
  };
  const agentSession = `${m(4)}$$toolu_01X`;
  const second: CrushSession = {
    id: agentSession,
    parentSessionId: main,
    title: 'Find the test framework',
    createdAt: T0 + 702,
    promptTokens: 3_100,
    completionTokens: 88,
    cost: 0.0106,
    messages: [
      { id: m(20), role: 'user', createdAt: T0 + 702, parts: [text('Which test framework does this project use?'), stop(T0 + 702)] },
      { id: m(21), role: 'assistant', ...sonnet, createdAt: T0 + 703, parts: [text('vitest (package.json devDependencies).'), done('end_turn', T0 + 703)] },
    ],
  };
  return [first, second];
}
