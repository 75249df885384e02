import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCline } from '../../src/formats/cline.js';
import { detectFormat } from '../../src/formats/detect.js';
import type { AssistantMessage } from '../../src/model/message.js';
import { compactionRecords, recordedCall } from '../../src/model/recorded.js';
import { runMain } from '../helpers/cli-in-process.js';
import { expectSourceReplayWithin5Percent, sourceReplayRows } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

// Tasks played as each version of Roo Code's context management plays them, with the usage an API that saw each prompt
// would report (see test/fixtures/roo-code/README.md and generate.mjs): each with its ui_messages.json, and alone.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'roo-code');
const WITH_UI = join(FIXTURES, 'with-ui', 'tasks');
const HISTORY_ONLY = join(FIXTURES, 'history-only', 'tasks');
const task = (n: number) => `7b1e0c52-000${n}-4a8e-9a6b-3c5d7e9f1a2b`;
const V2 = task(1);
const V1_TAGGED = task(2);
const V1 = task(3);
const V1_DELETED = task(4);
const WINDOW_TAGGED = task(5);
const WINDOW_DELETED = task(6);
/** The tagged sliding window's task with a UI log that says nothing of its truncations (Roo 2025-12-03 to 12-07). */
const WINDOW_UNSAID = task(7);
/** Condense v2 in Roo's versioned history (`{version: 2, messages}` of AI SDK messages, the Roo CLI 0.0.53). */
const V2_VERSIONED = task(8);
const REPLAYABLE = [V2, V1_TAGGED, V1, WINDOW_TAGGED, V2_VERSIONED];

interface ReqInfo {
  tokensIn: number;
  tokensOut: number;
  cacheWrites: number;
  cacheReads: number;
  cost: number;
}
const requestsOf = (id: string) =>
  (JSON.parse(readFileSync(join(WITH_UI, id, 'ui_messages.json'), 'utf8')) as { say?: string; text?: string }[]).flatMap((e) =>
    e.say === 'api_req_started' ? [JSON.parse(e.text!) as ReqInfo] : [],
  );
/** A task's history messages, from the array or from the versioned envelope. */
const history = (id: string) => {
  const parsed = JSON.parse(readFileSync(join(WITH_UI, id, 'api_conversation_history.json'), 'utf8')) as
    Record<string, unknown>[] | { messages: Record<string, unknown>[] };
  return Array.isArray(parsed) ? parsed : parsed.messages;
};

/** A task's whole recorded input from its history_item.json: `tokensIn` holds the cache from 2025-11 (rooUsage). */
function historyItemInput(id: string): number {
  const item = JSON.parse(readFileSync(join(HISTORY_ONLY, id, 'history_item.json'), 'utf8')) as ReqInfo & { ts: number };
  return item.ts >= Date.UTC(2025, 10, 1) ? item.tokensIn : item.tokensIn + item.cacheWrites + item.cacheReads;
}

async function read(dir: string, id: string) {
  const items = await collect(readCline(join(dir, id, 'api_conversation_history.json'), READ));
  expect(errorsOf(items)).toEqual([]);
  return transcriptsOf(items)[0].transcript;
}

describe("Roo Code's usage", () => {
  it('takes each reply’s usage from its api_req_started entry, matched by time (tokensIn holds the cache from 2025-11)', async () => {
    for (const id of [V2, V1]) {
      const t = await read(WITH_UI, id);
      const calls = t.messages.flatMap((m) => (m.is_compact_summary ? [] : (recordedCall(m) ?? [])));
      const requests = requestsOf(id);
      expect(calls).toHaveLength(requests.length);
      // V2 (2026) records the whole input in tokensIn; V1 (2025-07, an Anthropic provider) the uncached part only.
      const uncached = requests.map((r) => (id === V2 ? r.tokensIn - r.cacheWrites - r.cacheReads : r.tokensIn));
      expect(calls.map((c) => [c.uncached, c.written, c.read, c.output])).toEqual(
        requests.map((r, i) => [uncached[i], r.cacheWrites, r.cacheReads, r.tokensOut]),
      );
    }
  });

  it('stats on a Roo ui_messages.json alone counts the cache once', async () => {
    const run = await runMain(['stats', join(WITH_UI, V2, 'ui_messages.json'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const usage = (JSON.parse(run.stdout) as { recordedUsage: { recorded: Record<string, number> } }).recordedUsage.recorded;
    const requests = requestsOf(V2);
    const sum = (f: (r: ReqInfo) => number) => requests.reduce((n, r) => n + f(r), 0);
    expect(usage).toMatchObject({
      calls: requests.length,
      uncachedInput: sum((r) => r.tokensIn - r.cacheWrites - r.cacheReads),
      cacheCreation: sum((r) => r.cacheWrites),
      cacheRead: sum((r) => r.cacheReads),
    });
  });
});

describe("Roo Code's versioned history", () => {
  type Part = { type: string; toolCallId?: string };
  const parts = (role: string) =>
    history(V2_VERSIONED)
      .filter((m) => m.role === role && Array.isArray(m.content))
      .flatMap((m) => m.content as Part[]);

  it('reads {version: 2, messages} of AI SDK messages: tool calls, their results, the summary and each message a unit', async () => {
    const items = await collect(readCline(join(WITH_UI, V2_VERSIONED, 'api_conversation_history.json'), READ));
    expect(errorsOf(items)).toEqual([]);
    const [{ transcript: t, lines }] = transcriptsOf(items);
    expect(lines).toBe(history(V2_VERSIONED).length);
    const calls = parts('assistant').filter((p) => p.type === 'tool-call');
    const results = parts('tool').filter((p) => p.type === 'tool-result');
    const callIds = t.messages.flatMap((m) => (m.role === 'assistant' ? ((m as AssistantMessage).tool_calls ?? []).map((c) => c.id) : []));
    expect(callIds).toEqual(calls.map((c) => c.toolCallId));
    // Each result in its place (the pairing repair answers the last call, which the task ended on).
    const answered = new Set(results.map((r) => r.toolCallId));
    const tools = t.messages.flatMap((m) => (m.role === 'tool' && answered.has(m.tool_call_id as string) ? [m.tool_call_id] : []));
    expect(tools).toEqual(results.map((r) => r.toolCallId));
    // Every request's usage from the UI log, and the condense summaries read as v2's.
    expect(t.messages.filter((m) => recordedCall(m) !== undefined)).toHaveLength(requestsOf(V2_VERSIONED).length);
    expect(t.metadata?.rooContext).toMatchObject({ points: 'recorded', condenses: history(V2_VERSIONED).filter((m) => m.isSummary === true).length });
    expect(compactionRecords(t).length).toBeGreaterThan(0);
  });

  it('takes a copy under another name for Roo’s history by its schema, and refuses an envelope of another version whole', async () => {
    const dir = tempDir('roo-versioned');
    const copy = join(dir, 'roo-task.json');
    copyFileSync(join(WITH_UI, V2_VERSIONED, 'api_conversation_history.json'), copy);
    expect(await detectFormat(copy, READ)).toMatchObject({ ok: true, format: 'cline' });
    const other = join(dir, 'api_conversation_history.json');
    writeFileSync(other, JSON.stringify({ version: 3, messages: history(V2_VERSIONED) }));
    const items = await collect(readCline(other, READ));
    expect(transcriptsOf(items)).toEqual([]);
    expect(errorsOf(items).map((e) => (e.kind === 'error' ? [e.record.code, e.record.message] : []))).toEqual([
      ['E_FORMAT', "Roo Code's versioned history: version 3 is not known (only 2)"],
    ]);
  });
});

describe("Roo Code's context points", () => {
  it('reads condense v2: the user summary appended after the request, a fresh start from it', async () => {
    const t = await read(WITH_UI, V2);
    const records = compactionRecords(t);
    const summaries = history(V2).filter((m) => m.isSummary === true);
    expect(records).toHaveLength(summaries.length);
    for (const r of records) {
      expect(t.messages[r.summaryIndex as number]).toMatchObject({ role: 'user', is_compact_summary: true });
      // Nothing before the summary is kept, and it applies at the next reply.
      expect(r.keptHeadTo).toBeUndefined();
      expect(r.index).toBeUndefined();
    }
  });

  it.each([
    [V1_TAGGED, 1],
    [V1, undefined],
  ])('reads condense v1 (%s): the summary before the 3 messages it kept, the first message kept ahead of it', async (id, head) => {
    const t = await read(WITH_UI, id);
    for (const r of compactionRecords(t)) {
      expect(t.messages[r.summaryIndex as number]).toMatchObject({ role: 'assistant', is_compact_summary: true });
      expect(r.keptHeadTo).toBe(head);
      // The results that open the kept messages answer a call before the summary: the pairing repair moves them there.
      expect(r.keptFromIndex as number).toBeLessThanOrEqual(r.summaryIndex as number);
      expect(r.keptFromIndex as number).toBeGreaterThan((r.summaryIndex as number) - 3);
      // It applies from the request after its kept tail: the reply after the summary's three messages.
      expect(r.index).toBeGreaterThan((r.summaryIndex as number) + 3);
    }
  });

  it('reads the tagged sliding window: the marker in place of the hidden half, the messages before it kept', async () => {
    const t = await read(WITH_UI, WINDOW_TAGGED);
    const records = compactionRecords(t);
    expect(records).toHaveLength(history(WINDOW_TAGGED).filter((m) => m.isTruncationMarker === true).length);
    for (const r of records) {
      expect(String(t.messages[r.summaryIndex as number].content)).toMatch(/^\[Sliding window truncation: \d+ messages hidden/);
      expect(r.keptHeadTo as number).toBeLessThan(r.summaryIndex as number);
      expect(r.keptFromIndex).toBe(r.summaryIndex);
    }
  });

  it.each([V2, V1_TAGGED, V1, V2_VERSIONED])('places each condense by Roo’s rule without the UI log as the UI log does: %s', async (id) => {
    const withUi = await read(WITH_UI, id);
    const alone = await read(HISTORY_ONLY, id);
    expect(withUi.metadata?.rooContext).toMatchObject({ points: 'recorded' });
    // A v2 summary is placed by its own position; v1's by the 3 messages it kept.
    expect(alone.metadata?.rooContext).toMatchObject({ points: id === V2 || id === V2_VERSIONED ? 'recorded' : 'inferred' });
    expect(compactionRecords(alone)).toEqual(compactionRecords(withUi));
    // Without the UI log Roo's history records no usage: nothing to hold the replay to.
    expect(alone.messages.some((m) => m.usage !== undefined)).toBe(false);
  });

  it('places each truncation without the UI log at the first request whose history the marker fits', async () => {
    const withUi = compactionRecords(await read(WITH_UI, WINDOW_TAGGED));
    const alone = compactionRecords(await read(HISTORY_ONLY, WINDOW_TAGGED));
    // The marker tells how many messages were visible then, to within one request: the rule takes the earlier.
    expect(alone.map(({ index: _, ...r }) => r)).toEqual(withUi.map(({ index: _, ...r }) => r));
    alone.forEach((r, i) => expect(r.index as number).toBeLessThanOrEqual(withUi[i].index as number));
  });

  it('places the sliding window where the record’s prompt falls when the UI log does not say', async () => {
    const said = await read(WITH_UI, WINDOW_TAGGED);
    const unsaid = await read(WITH_UI, WINDOW_UNSAID);
    expect(unsaid.metadata?.rooContext).toMatchObject({ points: 'inferred', truncations: compactionRecords(said).length });
    expect(compactionRecords(unsaid)).toEqual(compactionRecords(said));
  });
});

describe('Roo Code source replay', () => {
  it('holds to the recorded input of every task with its UI log, and says whether its points were read or inferred', async () => {
    const rows = (await expectSourceReplayWithin5Percent([WITH_UI])) as unknown as {
      id: string;
      fidelity: { corrected: string[]; estimated: string[] };
      policies: { source: { compactionCalls?: { calls: number } } };
    }[];
    expect(rows.map((r) => r.id).sort()).toEqual([...REPLAYABLE, WINDOW_UNSAID].sort());
    for (const row of rows) {
      // Each condense is a summary call of its own; a sliding window's marker is written by none.
      const summaries = history(row.id).filter((m) => m.isSummary === true).length;
      expect(row.policies.source.compactionCalls?.calls ?? 0, row.id).toBe(summaries);
      const said = [...row.fidelity.corrected, ...row.fidelity.estimated].join('; ');
      expect(said, row.id).toMatch(row.id === WINDOW_UNSAID ? /Roo's context points placed by its rule/ : /Roo's context points read/);
    }
  }, 180_000);

  it('holds to history_item.json’s totals without the UI log, with the base prompt the tasks with one measured', async () => {
    // The system prompt and tools are in no file of a task: the replays of the tasks with their UI log measure them.
    const bases = (await sourceReplayRows([WITH_UI])).map((r) => r.basePrompt ?? 0).sort((a, b) => a - b);
    const basePrompt = bases[Math.floor(bases.length / 2)];
    const rows = await sourceReplayRows([HISTORY_ONLY], { basePrompt });
    const byId = new Map(rows.map((r) => [r.id, r]));
    // The destructive condense is not replayed (its history lost messages), nor the deleted sliding window, which leaves
    // no trace in the history alone but a replay far short of its totals.
    expect([...byId.keys()].sort()).toEqual([...REPLAYABLE].sort());
    for (const id of REPLAYABLE) {
      const f = byId.get(id)!.fidelity!;
      expect(f.perCall, id).toBe(false);
      expect(f.input.recorded, id).toBe(historyItemInput(id));
      expect(Math.abs(f.input.offBy!), id).toBeLessThan(0.05);
      const said = [...f.corrected, ...f.estimated].join('; ');
      expect(said, id).toMatch(id === V2 || id === V2_VERSIONED ? /Roo's context points read/ : /Roo's context points placed by its rule/);
    }
  }, 240_000);

  it('leaves out a history-only task whose sliding window deleted messages, as far short of its totals', async () => {
    const out = join(tempDir('roo-short'), 'sim');
    const inputs = [join(HISTORY_ONLY, WINDOW_DELETED), join(HISTORY_ONLY, WINDOW_TAGGED)];
    const run = await runMain(['simulate', ...inputs, '--policy', 'source', '--base-prompt', '2401', '--token-ratio', 'recorded', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { id: string }[];
      unreplayable?: { id: string; reason: string }[];
    };
    expect(report.perTranscript.map((t) => t.id)).toEqual([WINDOW_TAGGED]);
    expect(report.unreplayable?.map((u) => u.id)).toEqual([WINDOW_DELETED]);
    expect(report.unreplayable?.[0].reason).toMatch(/replays to 1\d% of the input its recorded totals hold: the file lost messages/);
    expect(run.stderr).toMatch(new RegExp(`${WINDOW_DELETED} .* is not replayed: its history replays to`));
    // Without a base prompt the shortfall says nothing of lost messages: the task is replayed.
    const bare = await sourceReplayRows([join(HISTORY_ONLY, WINDOW_DELETED)]);
    expect(bare.map((t) => t.id)).toEqual([WINDOW_DELETED]);
  }, 240_000);

  it('gives each task without its UI log the base prompt the archive’s tasks with one measured, and says so', async () => {
    // One archive: the replayable tasks with their UI log, and the history-only tasks beside them.
    const archive = tempDir('roo-mixed');
    for (const id of REPLAYABLE) cpSync(join(WITH_UI, id), join(archive, 'with-ui', id), { recursive: true });
    for (const id of [...REPLAYABLE, WINDOW_DELETED]) cpSync(join(HISTORY_ONLY, id), join(archive, 'history-only', id), { recursive: true });
    const rows = (await sourceReplayRows([archive])) as (Awaited<ReturnType<typeof sourceReplayRows>>[number] & { file: string })[];
    const historyOnly = rows.filter((r) => r.file.includes(`${join('history-only', '')}`) && r.fidelity?.perCall === false);
    expect(historyOnly.map((r) => r.id).sort()).toEqual([...REPLAYABLE].sort());
    const bases = rows
      .filter((r) => r.fidelity?.perCall === true)
      .map((r) => r.basePrompt!)
      .sort((a, b) => a - b);
    expect(bases).toHaveLength(REPLAYABLE.length);
    const median = bases[Math.floor(bases.length / 2)];
    expect(median).toBeGreaterThan(0);
    for (const r of historyOnly) {
      const f = r.fidelity!;
      expect(f.input.recorded, r.id).toBe(historyItemInput(r.id));
      expect(r.basePrompt, r.id).toBe(median);
      expect(Math.abs(f.input.offBy!), r.id).toBeLessThan(0.05);
      expect(f.estimated.join('; '), r.id).toContain(`base prompt estimated from ${REPLAYABLE.length} other sessions of its agent`);
      expect(f.corrected.join('; '), r.id).toContain("usage from history_item.json's task totals");
    }
  }, 240_000);

  it('says the base prompt is unknown when no task of the archive records its calls', async () => {
    const rows = await sourceReplayRows([join(HISTORY_ONLY, V2)]);
    expect(rows).toHaveLength(1);
    expect(rows[0].basePrompt).toBe(0);
    expect(rows[0].fidelity!.estimated.join('; ')).toMatch(/base prompt unknown/);
  }, 120_000);

  it('leaves out a task whose history lost the messages Roo deleted, with the reason', async () => {
    const out = join(tempDir('roo-unreplayable'), 'sim');
    const inputs = [join(WITH_UI, V1_DELETED), join(WITH_UI, WINDOW_DELETED), join(HISTORY_ONLY, V1_DELETED)];
    const run = await runMain(['simulate', ...inputs, '--policy', 'source', '--out', out]);
    const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: unknown[];
      unreplayable?: { id: string; reason: string }[];
    };
    expect(report.perTranscript).toEqual([]);
    expect(report.unreplayable?.map((u) => u.id)).toEqual([V1_DELETED, WINDOW_DELETED, V1_DELETED]);
    expect(report.unreplayable?.[0].reason).toMatch(/deleted the messages it condensed/);
    expect(report.unreplayable?.[1].reason).toMatch(/have no reply in the history/);
    expect(run.stderr).toMatch(new RegExp(`${V1_DELETED} .* has no messages to replay: Roo Code deleted`));
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toMatch(/## Not replayed/);
  }, 120_000);
});
