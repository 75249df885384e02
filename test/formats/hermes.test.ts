import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readHermesState } from '../../src/formats/hermes.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { sessionTotals } from '../../src/model/recorded.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, transcriptsOf } from './helpers.js';

// Built from Hermes Agent's schema (test/fixtures/hermes/README.md).
const STORE = join(import.meta.dirname, '..', 'fixtures', 'hermes', 'state.db');
const FIRST = '20260609_101320_a1b2c3';
const CHILD = '20260609_102000_d4e5f6';
const GATEWAY = '20260610_080000_0a0b0c';

/**
 * `HERMES_HOME=test/fixtures/hermes npx -y ccusage@20.0.24 hermes session --json --offline`, per session: `inputTokens`,
 * `cacheCreationTokens`, `cacheReadTokens`, `outputTokens`, `totalTokens` less those (the reasoning tokens), and
 * `totalCost`. ccusage lists no session without a model (the gateway one). Its cost for the child session is its own
 * price of the tokens: it reads the NULL `actual_cost_usd` as 0 and then prices the tokens rather than take the
 * recorded estimate (0.0133, which tcompact keeps).
 */
const CCUSAGE: Record<
  string,
  { inputTokens: number; cacheCreationTokens: number; cacheReadTokens: number; outputTokens: number; reasoning: number; cost: number }
> = {
  [FIRST]: {
    inputTokens: 1840,
    cacheCreationTokens: 9310,
    cacheReadTokens: 41200,
    outputTokens: 655,
    reasoning: 53125 - 1840 - 9310 - 41200 - 655,
    cost: 0.0698,
  },
  [CHILD]: {
    inputTokens: 310,
    cacheCreationTokens: 2200,
    cacheReadTokens: 12050,
    outputTokens: 140,
    reasoning: 14700 - 310 - 2200 - 12050 - 140,
    cost: 0.014895,
  },
};

async function read(file = STORE) {
  const items = await collect(readInputs([file], READ));
  return { items, byId: Object.fromEntries(transcriptsOf(items).map((t) => [t.transcript.id, t.transcript])) };
}

describe("Hermes Agent's state store (state.db)", () => {
  it('reads each session with its messages, in order of its start', async () => {
    expect(await detectFormat(STORE, READ)).toEqual({ ok: true, format: 'hermes', layout: 'json' });
    const { items, byId } = await read();
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(3);
    expect(transcriptsOf(items).map((t) => [t.format, t.line, t.transcript.id])).toEqual([
      ['hermes', 1, FIRST],
      ['hermes', 2, CHILD],
      ['hermes', 3, GATEWAY],
    ]);
    const first = byId[FIRST].messages as Record<string, unknown>[];
    expect(first.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(first[2]).toMatchObject({
      content: "I'll read the file first.",
      reasoning_content: 'JSON.parse("") throws.',
      tool_calls: [{ id: 'call_01read', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/list.ts"}' } }],
      timestamp: '2026-06-09T10:13:30.000Z',
    });
    expect(first[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_01read', name: 'read_file' });
    expect(first[4]).toMatchObject({ content: null, tool_calls: [{ id: 'call_02patch' }] });
    // A compression continues in a child session: the link is kept, no compaction is invented inside either.
    expect(byId[CHILD].metadata).toMatchObject({ parentSessionId: FIRST, title: 'Fix the crash on empty input (continued)' });
    expect(byId[FIRST].metadata).toMatchObject({ endReason: 'compression', platform: 'cli', costUSD: 0.0698 });
    expect(byId[CHILD].metadata).toMatchObject({ costUSD: 0.0133 });
  });

  it.each([FIRST, CHILD])("keeps the session's totals as recorded, equal to ccusage's, on no reply: %s", async (id) => {
    const t = (await read()).byId[id];
    expect(recordedUsage(t)).toBeUndefined();
    expect(t.messages.some((m) => m.usage !== undefined)).toBe(false);
    const totals = sessionTotals(t)!;
    const oracle = CCUSAGE[id];
    expect(totals.model).toBe('anthropic/claude-sonnet-4.5');
    expect({
      inputTokens: totals.tokens.uncached,
      cacheCreationTokens: totals.tokens.written,
      cacheReadTokens: totals.tokens.read,
      outputTokens: totals.tokens.output,
      reasoning: totals.thinking,
    }).toEqual({ ...oracle, cost: undefined });
    // The recorded cost is ccusage's where Hermes recorded the actual one.
    if (id === FIRST) expect(t.metadata?.costUSD).toBe(oracle.cost);
  });

  it('records no totals for a session that recorded no tokens (a gateway chat with no model), as ccusage lists none', async () => {
    const t = (await read()).byId[GATEWAY];
    expect(sessionTotals(t)).toBeUndefined();
    expect(t.messages).toEqual([{ role: 'user', content: 'ping', timestamp: '2026-06-10T10:13:20.000Z' }]);
  });

  it('gives a session whose tool calls do not parse one E_JSON error, and reads the others', async () => {
    const file = join(tempDir('hermes-bad'), 'state.db');
    copyFileSync(STORE, file);
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("UPDATE messages SET tool_calls = '[{\\"id\\": ' WHERE tool_calls IS NOT NULL AND session_id = ?", (sys.argv[2],))
con.commit()
`,
      file,
      FIRST,
    );
    const items = await collect(readHermesState(file, READ));
    expect(accountedUnits(items)).toBe(3);
    expect(transcriptsOf(items).map((t) => t.transcript.id)).toEqual([CHILD, GATEWAY]);
    expect(
      errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message.startsWith(`${file}: session ${FIRST}, message 3: tool_calls: `)]),
    ).toEqual([[1, 'E_JSON', true]]);
  });

  it('refuses a store of a later schema (messages without tool_calls) with one E_SCHEMA error naming the file', async () => {
    const file = join(tempDir('hermes-newer'), 'state.db');
    copyFileSync(STORE, file);
    runSqlitePython("import sqlite3, sys; con = sqlite3.connect(sys.argv[1]); con.execute('ALTER TABLE messages DROP COLUMN tool_calls'); con.commit()", file);
    expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'hermes', layout: 'json' });
    expect(await collect(readInputs([file], READ))).toEqual([
      {
        kind: 'error',
        record: { file, line: 1, byteOffset: 0, code: 'E_SCHEMA', message: `${file}: not a Hermes state database this version knows: no messages.tool_calls` },
      },
    ]);
  });
});
