import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { readGoose } from '../../src/formats/goose.js';
import type { AssistantMessage, ToolMessage } from '../../src/model/message.js';
import { findViolations } from '../../src/model/validity.js';
import { compactAndRestore } from './_round-trip.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, rawJsonl, scratchFile, transcriptsOf } from './helpers.js';

// Built from goose's source (conversation/message.rs, tool_result_serde.rs, session/legacy.rs): no session was found
// under a licence that allows copying.
const SESSION = join(import.meta.dirname, '..', 'fixtures', 'goose', '20251112_094402.jsonl');

type Item = { type: string; id?: string };

describe('goose sessions', () => {
  it('reads requests, responses (both result shapes), thinking and errors, counted as in the file', async () => {
    const items = await collect(readGoose(SESSION, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(SESSION));
    const [t] = transcriptsOf(items);
    const m = t.transcript.messages;
    const raw = rawJsonl(SESSION).slice(1);
    expect(raw).toHaveLength(rawJsonl(SESSION)[0].message_count as number);
    const content = raw.flatMap((r) => r.content as Item[]);
    const calls = m.flatMap((x) => (x.role === 'assistant' ? ((x as AssistantMessage).tool_calls ?? []) : []));
    const results = m.filter((x): x is ToolMessage => x.role === 'tool');
    expect(calls.map((c) => c.id)).toEqual(content.filter((c) => c.type === 'toolRequest').map((c) => c.id));
    expect(results.map((r) => r.tool_call_id)).toEqual(content.filter((c) => c.type === 'toolResponse').map((c) => c.id));
    expect(m.filter((x) => x.role === 'assistant')).toHaveLength(raw.filter((r) => r.role === 'assistant').length);
    expect(t.repairs).toEqual({});
    expect(calls[3].function).toEqual({ name: 'invalid_tool_call', arguments: expect.stringContaining('Could not interpret tool use parameters') });
    expect(results.filter((r) => r.is_error)).toHaveLength(2);
    expect(m[3]).toMatchObject({ reasoning_content: "JSON.parse('') throws, so an empty file crashes the command." });
    expect(t.transcript.metadata).toMatchObject({ working_dir: '/home/dev/todo-cli', skippedContent: { systemNotification: 1 } });
    expect(findViolations(m)).toEqual([]);
    expect(compactAndRestore(t.transcript)).toBeGreaterThan(0);
  });

  it("keeps goose's compaction: the hidden messages stay marked, the agent-only summary is the compaction point", async () => {
    const [t] = transcriptsOf(await collect(readGoose(SESSION, READ)));
    const m = t.transcript.messages;
    expect(m.filter((x) => x.agent_visible === false)).toHaveLength(6);
    expect(t.transcript.metadata?.compactions).toEqual([{ summaryIndex: 6 }]);
    expect(m[6]).toMatchObject({ role: 'user', is_compact_summary: true, user_visible: false });
    expect(sourceCompactionPoints(t.transcript).map((p) => [p.index, p.kinds, p.summary === m[6]])).toEqual([[6, ['compacted'], true]]);

    // Whatever role goose gives the summary.
    const lines = readFileSync(SESSION, 'utf8').split('\n');
    lines[7] = lines[7].replace('"role":"user"', '"role":"assistant"');
    const [a] = transcriptsOf(await collect(readGoose(scratchFile('assistant-summary.jsonl', lines.join('\n')), READ)));
    expect(a.transcript.metadata?.compactions).toEqual([{ summaryIndex: 6 }]);
    expect(a.transcript.messages[6]).toMatchObject({ role: 'assistant', is_compact_summary: true });
  });

  it('reads a session stored as one JSON document and reports a line that is not a goose record', async () => {
    const lines = rawJsonl(SESSION);
    const whole = scratchFile('session.json', JSON.stringify({ id: '20251112_094402', ...lines[0], conversation: lines.slice(1) }));
    const [t] = transcriptsOf(await collect(readGoose(whole, { ...READ, layout: 'json' })));
    const [u] = transcriptsOf(await collect(readGoose(SESSION, READ)));
    expect(t.transcript.messages).toEqual(u.transcript.messages);
    const broken = scratchFile('broken.jsonl', [JSON.stringify(lines[0]), '{"role":"tool","content":[]}', JSON.stringify(lines[1])].join('\n'));
    const items = await collect(readGoose(broken, READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code])).toEqual([[2, 'E_SCHEMA']]);
    expect(accountedUnits(items)).toBe(3);
  });
});
