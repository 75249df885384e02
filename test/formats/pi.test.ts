import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readOpenClaw, readPi } from '../../src/formats/pi.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import type { AssistantMessage, Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { READ, accountedUnits, collect, errorsOf, expectCompactRestores, lineCount, rawJsonl, scratchFile, skippedOf, transcriptsOf } from './helpers.js';

// Written by generate.mjs from pi's session manager (see test/fixtures/pi/README.md).
const PI = join(import.meta.dirname, '..', 'fixtures', 'pi', 'sessions');
const OPENCLAW = join(import.meta.dirname, '..', 'fixtures', 'openclaw', 'agents', 'main', 'sessions');
const TOOLS = join(PI, '--home-dev-shop--', '2026-03-05T09-00-00-000Z_0195a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl');
const BRANCHES = join(PI, '--home-dev-shop--', '2026-03-06T14-00-00-000Z_0195a1b2-4d5e-7f60-8b9c-1d2e3f4a5b6c.jsonl');
const V1 = join(PI, '--home-dev-notes--', '2025-11-20T08-00-00-000Z_6f1e2d3c-4b5a-4968-8776-655443322110.jsonl');
const FIRST = join(PI, '--home-dev-notes--', '2025-11-05T16-00-00-000Z_5e0d1c2b-3a4f-4e5d-9c6b-7a8f9e0d1c2b.jsonl');
const V2 = join(PI, '--home-dev-notes--', '2025-12-10T10-00-00-000Z_7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl');
const LIVE = join(OPENCLAW, '3c9d2e1f-0a4b-4c6d-8e7f-9a0b1c2d3e4f.jsonl');
const archive = (kind: string) => join(OPENCLAW, readdirSync(OPENCLAW).find((f) => f.includes(`.jsonl.${kind}.`)) as string);

async function read(file: string, reader = readPi) {
  const items = await collect(reader(file, READ));
  expect(errorsOf(items)).toEqual([]);
  expect(accountedUnits(items)).toBe(lineCount(file));
  const [t] = transcriptsOf(items);
  return { t: t.transcript, items };
}

const assistants = (t: Transcript) => t.messages.filter((m): m is AssistantMessage => m.role === 'assistant');
const raw = (file: string) => rawJsonl(file) as { type: string; id?: string; message?: { role: string; usage?: Record<string, number> } }[];

describe('pi sessions', () => {
  it('reads thinking, parallel tool calls, ! commands, extension messages and usage, every line accounted for', async () => {
    const { t, items } = await read(TOOLS);
    expect(findViolations(t.messages)).toEqual([]);
    expect(t.id).toBe('0195a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b');
    expect(t.metadata).toMatchObject({
      source: { format: 'pi' },
      cwd: '/home/dev/shop',
      sessionVersion: 3,
      title: 'checkout discount fix',
      models: ['claude-sonnet-4-5', 'claude-opus-4-1'],
    });
    const [first] = assistants(t);
    expect(first).toMatchObject({
      content: 'Reading the test and the cart module.',
      reasoning_content: 'Look at the test and the module it imports first.',
      tool_calls: [{ id: 'toolu_01', function: { name: 'read', arguments: '{"path":"test/checkout.test.ts"}' } }, { id: 'toolu_02' }],
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      usage: { input_tokens: 6, cache_read_input_tokens: 0 },
    });
    expect(t.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'toolu_03')).toMatchObject({ name: 'bash', is_error: true });
    // `!git status` is sent as user text; `!!cat ~/.npmrc` never reaches the model.
    expect(t.messages.find((m) => m.bash_execution === true)).toMatchObject({ role: 'user', content: 'Ran `git status --short`\n```\n M src/cart.ts\n```' });
    expect(JSON.stringify(t.messages)).not.toContain('.npmrc');
    expect(t.messages.find((m) => m.is_meta === true)).toMatchObject({ role: 'user', content: 'Reminder: the linter config changed this week.' });
    expect(
      skippedOf(items)
        .map((s) => s.reason)
        .sort(),
    ).toEqual(['record:custom/todo-extension', 'record:label', 'record:message/bashExecution-excluded', 'record:thinking_level_change']);
    // The failed reply is billed and never sent again; the aborted one with no usage is no priced call.
    const failed = assistants(t).filter((m) => m.retried === true);
    expect(failed.map((m) => m.stop_reason)).toEqual(['error', 'aborted']);
    expect(failed[0].usage).toBeDefined();
    expect(failed[1]).toMatchObject({ unpriced_request: true });
    expect(failed[1].usage).toBeUndefined();
    const priced = raw(TOOLS).filter(
      (r) => r.message?.role === 'assistant' && Object.values(r.message.usage ?? {}).some((v) => typeof v === 'number' && v > 0),
    );
    expect(assistants(t).filter((m) => m.usage !== undefined)).toHaveLength(priced.length);
  });

  it("puts pi's compaction where it happened: its summary as pi sends it, and what it kept", async () => {
    const { t } = await read(TOOLS);
    const [c] = t.metadata?.compactions as { summaryIndex: number; keptFromIndex: number; preTokens: number; firstKeptEntryId: string }[];
    const summary = t.messages[c.summaryIndex];
    expect(summary).toMatchObject({ role: 'user', is_compact_summary: true });
    expect(summary.content).toMatch(/^The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal/);
    expect(summary.content).toMatch(/\n<\/summary>$/);
    const entry = raw(TOOLS).find((r) => r.type === 'compaction') as unknown as { firstKeptEntryId: string; tokensBefore: number };
    expect(c).toMatchObject({ firstKeptEntryId: entry.firstKeptEntryId, preTokens: entry.tokensBefore });
    expect(t.messages[c.keptFromIndex]).toMatchObject({ role: 'user', content: 'Now run the whole suite and the linter.' });
    const [point] = sourceCompactionPoints(t);
    expect(point).toMatchObject({ kinds: ['compacted'], keptFrom: c.keptFromIndex, summary });
    expect(point.callIndex).toBeGreaterThan(c.summaryIndex);
  });

  it('marks the branches of the id/parentId tree as forks, with the summary pi gives the new branch', async () => {
    const { t } = await read(BRANCHES);
    const shape = t.messages.map(
      (m: Message) =>
        `${m.role[0]}${m.thread ?? ''}${m.branch_point !== undefined ? `^${m.branch_point}` : ''}${m.branch_from !== undefined ? `<${m.branch_from}` : ''}`,
    );
    // The first fork is after the first reply (the third branch), the second after the profile's result.
    expect(shape).toEqual(['u', 'a^0', 't^1', 'a', 'u', 'a', 't', 'a', 'u1<1', 'u1', 'a1', 't1', 'a1', 'u2<0', 'a2']);
    expect(t.messages[8]).toMatchObject({ branch_summary: true, is_meta: true });
    expect(t.messages[8].content).toMatch(/^The following is a summary of a branch that this conversation came back from:\n\n<summary>\nLazy loading/);
    expect(t.metadata).toMatchObject({ branchSummaries: 1 });
    expect(sourceCompactionPoints(t)).toEqual([]);
  });

  it('reads the older layouts as pi migrates them: v1 without ids (a compaction by entry index), v2 with hookMessage', async () => {
    const { t } = await read(V1);
    expect(
      raw(V1)
        .slice(1)
        .every((r) => r.id === undefined),
    ).toBe(true);
    expect(t.metadata).toMatchObject({ sessionVersion: 1 });
    const [c] = t.metadata?.compactions as { summaryIndex: number; keptFromIndex: number }[];
    expect(t.messages[c.keptFromIndex]).toMatchObject({ role: 'user', content: 'Which is the newest?' });
    expect(t.messages.some((m) => m.thread !== undefined)).toBe(false);
    const v2 = (await read(V2)).t;
    expect(v2.messages.map((m) => [m.role, m.is_meta ?? false])).toEqual([
      ['user', false],
      ['user', true],
      ['assistant', false],
    ]);
    expect(v2.messages[1].content).toBe('Calendar: standup at 10:00.');
  });

  it('reads the first layout: the system prompt and the model in the header, a model_change naming the model alone', async () => {
    const { t } = await read(FIRST);
    const header = raw(FIRST)[0] as unknown as { systemPrompt: string };
    expect(t.messages[0]).toMatchObject({ role: 'system', content: header.systemPrompt });
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(assistants(t).map((m) => m.model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1', 'claude-opus-4-1']);
    expect(t.metadata).toMatchObject({ sessionVersion: 1, models: ['claude-sonnet-4-5', 'claude-opus-4-1'] });
  });

  it('reports an entry that breaks the schema and reads the rest', async () => {
    const lines = [
      { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' },
      { type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi' } },
      { type: 'message', id: 'b', parentId: 'a', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: 'not blocks' } },
      { type: 'message', parentId: 'a', timestamp: '2026-01-01T00:00:03.000Z', message: { role: 'user', content: 'no id' } },
      { type: 'message', id: 'c', parentId: 'a', timestamp: '2026-01-01T00:00:04.000Z', message: { role: 'wizard', content: 'x' } },
    ];
    const file = scratchFile('s1.jsonl', `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const items = await collect(readPi(file, READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message])).toEqual([
      [3, 'E_SCHEMA', 'message.content: expected an array of blocks'],
      [4, 'E_SCHEMA', 'id: expected a string (entries of version 2 and later have ids)'],
      [5, 'E_SCHEMA', 'message.role: unknown role "wizard"'],
    ]);
    expect(transcriptsOf(items)[0].transcript.messages).toEqual([{ role: 'user', content: 'hi', timestamp: '2026-01-01T00:00:01.000Z' }]);
    expect(accountedUnits(items)).toBe(5);
  });
});

describe('OpenClaw sessions', () => {
  it("reads the live session, its model from model_change where a reply names none, and pi's compaction", async () => {
    const { t } = await read(LIVE, readOpenClaw);
    expect(t.metadata).toMatchObject({ source: { format: 'openclaw' }, models: ['claude-opus-4-5'] });
    expect(t.metadata?.archived).toBeUndefined();
    const noModel = raw(LIVE).findIndex((r) => r.message?.role === 'assistant' && !('model' in (r.message as object)));
    expect(noModel).toBeGreaterThan(0);
    expect(assistants(t).every((m) => m.model === 'claude-opus-4-5')).toBe(true);
    expect(sourceCompactionPoints(t)).toHaveLength(1);
  });

  it('reads the archives of a reset and a deletion as sessions of their own, with when they were archived', async () => {
    const reset = (await read(archive('reset'), readOpenClaw)).t;
    expect(reset.id).toBe('2b8c1d0e-9f3a-4b5c-8d6e-7f8091a2b3c4');
    expect(reset.metadata).toMatchObject({ archived: 'reset', archivedAt: '2026-03-07T07:29:59.512Z' });
    const deleted = (await read(archive('deleted'), readOpenClaw)).t;
    expect(deleted.metadata).toMatchObject({ archived: 'deleted', archivedAt: '2026-03-05T12:05:00.000Z' });
  });
});

describe('detection and walks of pi and OpenClaw files', () => {
  it('lands every fixture on its own reader, and the walk takes the archives but not sessions.json', async () => {
    const files: string[] = [];
    for (const dir of [PI, OPENCLAW]) for await (const f of walkDataFiles(dir)) files.push(f);
    expect(files.some((f) => f.endsWith('sessions.json'))).toBe(false);
    expect(files.filter((f) => /\.jsonl\.(reset|deleted)\./.test(f))).toHaveLength(2);
    for (const f of files) {
      const d = await detectFormat(f, READ);
      expect(d.ok && d.format, f).toBe(f.startsWith(OPENCLAW) ? 'openclaw' : 'pi');
    }
    const items = await collect(readInputs([PI, OPENCLAW], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(transcriptsOf(items).map((i) => i.format)).toEqual(['pi', 'pi', 'pi', 'pi', 'pi', 'openclaw', 'openclaw', 'openclaw']);
  });

  it('compacts every session and restores it byte for byte', async () => {
    const items = await collect(readInputs([PI, OPENCLAW], READ));
    const transcripts = transcriptsOf(items).map((i) => i.transcript);
    expect(expectCompactRestores(transcripts, 4000)).toBeGreaterThan(0);
  });

  it('does not take a pi-like line without the header fields as pi', async () => {
    const noId = scratchFile('x.jsonl', `${JSON.stringify({ type: 'session', timestamp: '2026-01-01T00:00:00Z' })}\n`);
    const d = await detectFormat(noId, READ);
    expect(d.ok).toBe(false);
  });
});
