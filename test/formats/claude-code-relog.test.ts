import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isAssistant } from '../../src/model/message.js';
import { findViolations } from '../../src/model/validity.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BUNDLED_CLAUDE_CODE, READ, SESSION_SHARE, SPOTTER, accountedUnits, collect, filesUnder, lineCount, transcriptsOf } from './helpers.js';
import { hasCorpus } from '../helpers/corpus.js';

/**
 * A Claude Code session that logs a reply a second time: the same `message.id` and the same tool_use ids on
 * a second parent branch, then the same results. The copy is kept once and counted as `relogDropped`; every line stays
 * accounted for. No file of the shared corpus does this (checked below), so the case is the real bundled session
 * tool_heavy.jsonl with one of its replies and that reply's results logged again later on another branch.
 */
const SOURCE = join(BUNDLED_CLAUDE_CODE, 'tool_heavy.jsonl');

type Rec = Record<string, unknown> & { uuid?: string; parentUuid?: string | null; message?: { id?: string; content?: unknown } };

const toolUses = (r: Rec): string[] =>
  Array.isArray(r.message?.content)
    ? (r.message.content as { type: string; id?: string }[]).filter((b) => b.type === 'tool_use').map((b) => b.id as string)
    : [];
const answers = (r: Rec, id: string): boolean =>
  r.type === 'user' && Array.isArray(r.message?.content) && (r.message.content as { type: string; tool_use_id?: string }[]).some((b) => b.tool_use_id === id);

/**
 * The bundled session with its first reply that made a tool call logged again, with the record of its result, after a
 * later record (new uuids; the copy of the call hangs off that later record: a second parent branch).
 */
function withRelog(dir: string): { file: string; relogged: string[] } {
  const lines = readFileSync(SOURCE, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const records = lines.map((l) => JSON.parse(l) as Rec);
  const callAt = records.findIndex((r) => r.type === 'assistant' && toolUses(r).length > 0);
  const ids = toolUses(records[callAt]);
  const resultAt = records.findIndex((r, i) => i > callAt && answers(r, ids[0]));
  // Insert after the last conversation record (a second branch that ends the file).
  let after = records.length - 1;
  while (records[after].type !== 'user' && records[after].type !== 'assistant') after--;
  const call = { ...records[callAt], uuid: 'relog-call', parentUuid: records[after].uuid };
  const result = { ...records[resultAt], uuid: 'relog-result', parentUuid: 'relog-call' };
  const out = [...lines.slice(0, after + 1), JSON.stringify(call), JSON.stringify(result), ...lines.slice(after + 1)];
  const file = join(dir, 'relogged.jsonl');
  writeFileSync(file, `${out.join('\n')}\n`);
  return { file, relogged: ids };
}

describe('Claude Code re-logged replies', () => {
  it('keeps a re-logged reply and its results once: the same messages as the session without the copy, relogDropped 2', async () => {
    const dir = tempDir('relog');
    const { file, relogged } = withRelog(dir);
    expect(relogged.length).toBeGreaterThan(0);
    const [original] = transcriptsOf(await collect(readClaudeCode(SOURCE, READ)));
    const items = await collect(readClaudeCode(file, READ));
    const [t] = transcriptsOf(items);
    expect(t.transcript.messages).toEqual(original.transcript.messages);
    expect(t.repairs).toEqual({ ...original.repairs, relogDropped: 2 });
    expect(findViolations(t.transcript.messages)).toEqual([]);
    // No call was renamed as a new one: each relogged id is called once.
    const calls = t.transcript.messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
    for (const id of relogged) expect(calls.filter((c) => c === id || c.startsWith(`${id}~`))).toEqual([id]);
    // Every line is accounted for once: the two re-logged lines count with the transcript.
    expect(accountedUnits(items)).toBe(lineCount(file));
    expect(t.lines).toBe(original.lines + 2);
  });

  it('reports relogDropped under convert repairs and keeps the line accounting', async () => {
    const dir = tempDir('relog-convert');
    const { file } = withRelog(dir);
    const out = join(dir, 'out.jsonl');
    const r = await runMain(['convert', file, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/relogDropped[^\d]*2/);
  });

  it('drops a stretch re-logged right after itself with new uuids (same message id, content, timestamp): no call renamed ~2', async () => {
    const dir = tempDir('relog-stretch');
    const lines = readFileSync(SOURCE, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const records = lines.map((l) => JSON.parse(l) as Rec);
    const callAt = records.findIndex((r) => r.type === 'assistant' && toolUses(r).length > 0);
    const ids = toolUses(records[callAt]);
    const resultAt = records.findIndex((r, i) => i > callAt && answers(r, ids[0]));
    // The call and its result logged again straight after the result, as a resume does: the reply is still open.
    const call = { ...records[callAt], uuid: 'stretch-call', parentUuid: records[resultAt].uuid };
    const result = { ...records[resultAt], uuid: 'stretch-result', parentUuid: 'stretch-call' };
    const out = [...lines.slice(0, resultAt + 1), JSON.stringify(call), JSON.stringify(result), ...lines.slice(resultAt + 1)];
    const file = join(dir, 'stretch.jsonl');
    writeFileSync(file, `${out.join('\n')}\n`);
    const [original] = transcriptsOf(await collect(readClaudeCode(SOURCE, READ)));
    const [t] = transcriptsOf(await collect(readClaudeCode(file, READ)));
    expect(t.transcript.messages).toEqual(original.transcript.messages);
    expect(t.repairs.relogDropped).toBe(2);
    const calls = t.transcript.messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
    expect(calls.filter((c) => c.includes('~'))).toEqual([]);
  });

  const REAL = 'Claude Code re-logs on the real sessions (spotter, session-share)';
  it.skipIf(!hasCorpus(REAL))('finds no re-log in the real sessions, which hold none (no message.id of a closed reply comes back)', async () => {
    const files = [...filesUnder(SPOTTER, /\.jsonl$/), ...filesUnder(SESSION_SHARE, /\.jsonl$/)];
    expect(files.length).toBe(28);
    for (const f of files) {
      // Counted straight from the raw records: an assistant message.id that comes back after another one.
      const seen = new Set<string>();
      let last: string | undefined;
      let comeBack = 0;
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        if (line === '') continue;
        const r = JSON.parse(line) as Rec;
        const id = r.type === 'assistant' ? r.message?.id : undefined;
        if (id === undefined || id === last) continue;
        if (seen.has(id)) comeBack++;
        if (last !== undefined) seen.add(last);
        last = id;
      }
      const items = transcriptsOf(await collect(readClaudeCode(f, READ)));
      const dropped = items.reduce((n, i) => n + (i.repairs.relogDropped ?? 0), 0);
      expect({ f, comeBack, dropped }).toEqual({ f, comeBack: 0, dropped: 0 });
    }
  });
});
