import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { readOpenCode } from '../../src/formats/opencode.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { AssistantMessage, ToolMessage } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { writeOpenCodeStorage } from '../helpers/agent-home.js';
import { tempDir } from '../helpers/temp-dir.js';
import { compactAndRestore } from './_round-trip.js';
import { READ, accountedUnits, collect, errorsOf, scratchFile, transcriptsOf } from './helpers.js';

// Built from OpenCode's source (cli/cmd/export.ts, session/message-v2.ts): no export was found under a licence that
// allows copying.
const EXPORT = join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json');

type Part = { type: string; callID?: string; state?: { status: string }; tokens?: Record<string, unknown> };
type Raw = { messages: { info: { role: string; summary?: boolean }; parts: Part[] }[] };

describe('OpenCode session exports', () => {
  it('makes one assistant message per step, each call followed by its result, usage per step', async () => {
    const raw = JSON.parse(readFileSync(EXPORT, 'utf8')) as Raw;
    const items = await collect(readOpenCode(EXPORT, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(1);
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    const parts = raw.messages.flatMap((x) => x.parts);
    const toolParts = parts.filter((p) => p.type === 'tool');
    const calls = m.flatMap((x) => (x.role === 'assistant' ? ((x as AssistantMessage).tool_calls ?? []) : []));
    const results = m.filter((x): x is ToolMessage => x.role === 'tool');
    expect(calls.map((c) => c.id)).toEqual(toolParts.map((p) => p.callID));
    expect(results.filter((r) => r.content !== NO_RESULT_TEXT)).toHaveLength(toolParts.filter((p) => ['completed', 'error'].includes(p.state!.status)).length);
    // One model call per step: as many assistant messages as step-start parts.
    expect(m.filter((x) => x.role === 'assistant')).toHaveLength(parts.filter((p) => p.type === 'step-start').length);
    expect(m.filter((x) => x.role === 'user')).toHaveLength(raw.messages.filter((x) => x.info.role === 'user').length);
    // The running call of the aborted turn is reported, not dropped.
    expect(t.repairs).toEqual({ missingResultFilled: 1 });
    expect(results.find((r) => r.is_error)).toMatchObject({ name: 'edit', content: 'Error: oldString not found in content' });
    const usage = recordedUsage(t.transcript)!;
    const finishes = parts.filter((p) => p.type === 'step-finish').map((p) => p.tokens as { output: number });
    expect(usage.calls).toBe(finishes.length);
    expect(usage.output).toBe(finishes.reduce((n, f) => n + f.output, 0));
    expect(t.transcript.metadata).toMatchObject({ prunedToolOutputs: 1, skippedParts: { patch: 1 }, models: ['claude-sonnet-4-5'] });
    expect(findViolations(m)).toEqual([]);
    expect(compactAndRestore(t.transcript)).toBeGreaterThan(0);
  });

  it("keeps OpenCode's compaction: the question as the boundary, the summary reply marked, a point eval and simulate find", async () => {
    const [t] = transcriptsOf(await collect(readOpenCode(EXPORT, READ)));
    const m = t.transcript.messages;
    expect(t.transcript.metadata?.compactions).toEqual([{ boundaryIndex: 8, summaryIndex: 9, trigger: 'auto' }]);
    expect(m[8]).toEqual({ role: 'user', content: 'What did we do so far?' });
    expect(m[9]).toMatchObject({ role: 'assistant', is_compact_summary: true });
    expect(sourceCompactionPoints(t.transcript).map((p) => [p.index, p.kinds])).toEqual([[8, ['boundary']]]);
  });

  it("reads a session of OpenCode's JSON storage, its messages and parts gathered from their folders, as the export of it", async () => {
    const storage = join(tempDir('opencode-storage'), 'storage');
    const session = writeOpenCodeStorage(EXPORT, storage);
    const items = await collect(readInputs([session], READ));
    expect(errorsOf(items)).toEqual([]);
    const [stored] = transcriptsOf(items);
    const [exported] = transcriptsOf(await collect(readOpenCode(EXPORT, READ)));
    expect(stored.format).toBe('opencode');
    expect(stored.lines).toBe(1);
    expect(stored.transcript.messages).toEqual(exported.transcript.messages);
    expect({ ...stored.transcript.metadata, source: undefined }).toEqual({ ...exported.transcript.metadata, source: undefined });
  });

  it('reports a stored session whose part does not parse as E_JSON naming the part file', async () => {
    const storage = join(tempDir('opencode-storage'), 'storage');
    const session = writeOpenCodeStorage(EXPORT, storage);
    const part = join(storage, 'part', 'msg_9a1b2c3d4001ZyXwVuTsRqPo', 'prt_9a1b2c3d4002aAbBcCdDeEfF.json');
    writeFileSync(part, '{"id": "prt_9a1b2c3d4002aAbBcCdDeEfF", ');
    const items = await collect(readInputs([session], READ));
    expect(transcriptsOf(items)).toEqual([]);
    expect(errorsOf(items).map((e) => [e.record.file, e.record.code, e.record.message.startsWith(`${part}: `)])).toEqual([[session, 'E_JSON', true]]);
  });

  it('reports an export whose messages are not {info, parts} as E_SCHEMA', async () => {
    const file = scratchFile('ses_bad.json', JSON.stringify({ info: { id: 'ses_bad' }, messages: [{ role: 'user', content: 'hi' }] }));
    const items = await collect(readOpenCode(file, READ));
    expect(errorsOf(items).map((e) => [e.record.code, e.record.message])).toEqual([['E_SCHEMA', 'messages[0]: expected {info, parts}']]);
  });
});
