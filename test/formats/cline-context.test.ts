import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCline } from '../../src/formats/cline.js';
import { compactionRecords, recordedCall } from '../../src/model/recorded.js';
import { runMain } from '../helpers/cli-in-process.js';
import { expectSourceReplayWithin5Percent } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

// Tasks played as Cline's ContextManager plays them, with the usage an API that saw each prompt would report (see
// test/fixtures/cline/SOURCE.md and generate.mjs): each task with its ui_messages.json, and its history alone.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'cline');
const WITH_UI = join(FIXTURES, 'with-ui', 'tasks');
const HISTORY_ONLY = join(FIXTURES, 'history-only', 'tasks');
const TASKS = readdirSync(WITH_UI).sort();
const HALF = '1745000000000';
const QUARTER = '1745100000000';
const REWRITE = '1745200000000';
const CONTEXT_ERROR = '1745300000000';
const LEGACY = '1739000000000';
const OPENAI = '1745400000000';

interface UiEntry {
  ts: number;
  say?: string;
  text?: string;
  conversationHistoryIndex?: number;
  conversationHistoryDeletedRange?: [number, number];
}
interface ReqInfo {
  tokensIn: number;
  tokensOut: number;
  cacheWrites: number;
  cacheReads: number;
  cost: number;
}

const uiOf = (task: string) => JSON.parse(readFileSync(join(WITH_UI, task, 'ui_messages.json'), 'utf8')) as UiEntry[];
const requestsOf = (task: string) => uiOf(task).flatMap((e) => (e.say === 'api_req_started' ? [JSON.parse(e.text!) as ReqInfo] : []));

async function read(file: string) {
  const items = await collect(readCline(file, READ));
  expect(errorsOf(items)).toEqual([]);
  return transcriptsOf(items)[0].transcript;
}

/** The deleted ranges the UI log records, in order of first use: on the entry after each api_req_started. */
function recordedRanges(task: string): string[] {
  const ui = uiOf(task);
  const out: string[] = [];
  ui.forEach((e, i) => {
    const range = e.say === 'api_req_started' ? ui[i + 1]?.conversationHistoryDeletedRange : undefined;
    if (range && out[out.length - 1] !== range.join(',')) out.push(range.join(','));
  });
  return out;
}

/**
 * The kept head and tail of each truncation record that cuts, as `<keptHeadTo>-<keptFromIndex>`, each once (a record
 * that changes the rewrites alone repeats the range in force).
 */
const cutsOf = (t: Awaited<ReturnType<typeof read>>) =>
  compactionRecords(t)
    .filter((c) => c.truncation === true && c.keptFromIndex !== 0)
    .map((c) => `${String(c.keptHeadTo)}-${String(c.keptFromIndex)}`)
    .filter((cut, i, all) => i === 0 || all[i - 1] !== cut);

describe('Cline usage as Cline counts it', () => {
  it('takes each request cache split from api_req_started, and Cline’s cost beside it', async () => {
    const t = await read(join(WITH_UI, HALF, 'api_conversation_history.json'));
    const calls = t.messages.flatMap((m) => recordedCall(m) ?? []);
    const requests = requestsOf(HALF);
    expect(calls).toHaveLength(requests.length);
    expect(calls.map((c) => [c.uncached, c.written, c.read, c.output])).toEqual(requests.map((r) => [r.tokensIn, r.cacheWrites, r.cacheReads, r.tokensOut]));
    expect(t.messages.flatMap((m) => (m.role === 'assistant' ? [m.cost] : []))).toEqual(requests.map((r) => r.cost));
  });

  it('reads metrics.tokens.prompt without the cache, but for the generic openai provider', async () => {
    for (const task of [HALF, OPENAI]) {
      const t = await read(join(HISTORY_ONLY, task, 'api_conversation_history.json'));
      const calls = t.messages.flatMap((m) => recordedCall(m) ?? []);
      // The prompt of each request is what the UI log's usage adds up to under the provider's own rule.
      const whole = requestsOf(task).map((r) => (task === OPENAI ? r.tokensIn : r.tokensIn + r.cacheWrites + r.cacheReads));
      expect(calls.map((c) => c.uncached + c.written + c.read)).toEqual(whole);
    }
  });

  it('stats on a ui_messages.json alone sums its api_req_started entries', async () => {
    const file = join(WITH_UI, HALF, 'ui_messages.json');
    const run = await runMain(['stats', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const usage = (JSON.parse(run.stdout) as { recordedUsage: { recorded: Record<string, number> } }).recordedUsage.recorded;
    const requests = requestsOf(HALF);
    const sum = (f: (r: ReqInfo) => number) => requests.reduce((n, r) => n + f(r), 0);
    expect(usage).toMatchObject({
      calls: requests.length,
      uncachedInput: sum((r) => r.tokensIn),
      cacheCreation: sum((r) => r.cacheWrites),
      cacheRead: sum((r) => r.cacheReads),
      output: sum((r) => r.tokensOut),
    });
  });

  it('replays nothing from a ui_messages.json alone, and says so', async () => {
    const file = join(WITH_UI, HALF, 'ui_messages.json');
    const run = await runMain(['simulate', file, '--policy', 'source', '--out', join(tempDir('cline-ui-sim'), 'sim')]);
    expect(run.stderr).toMatch(/has no messages to replay: its file records usage only/);
  });
});

describe("Cline's deleted ranges", () => {
  it.each(TASKS)('reads them from ui_messages.json and infers the same ones without it: %s', async (task) => {
    const withUi = await read(join(WITH_UI, task, 'api_conversation_history.json'));
    const alone = await read(join(HISTORY_ONLY, task, 'api_conversation_history.json'));
    expect(withUi.metadata?.clineContext).toMatchObject({ points: 'recorded', cuts: recordedRanges(task).length });
    expect(alone.metadata?.clineContext).toMatchObject({ points: 'inferred', cuts: recordedRanges(task).length });
    expect(cutsOf(alone)).toEqual(cutsOf(withUi));
  });

  it('shows each path of the rule in the fixtures', () => {
    const ranges = (task: string) => recordedRanges(task).map((r) => r.split(',').map(Number));
    // Half: each cut removes half of what followed the previous one; quarter: three quarters.
    expect(ranges(HALF).length).toBeGreaterThan(3);
    const [a, b] = ranges(QUARTER).slice(0, 2);
    expect(b[1] - a[1]).toBeGreaterThan(a[1] - 1);
    // Before April 2025 the ranges start at 1.
    expect(ranges(LEGACY).every((r) => r[0] === 1)).toBe(true);
    expect(ranges(HALF).every((r) => r[0] === 2)).toBe(true);
    // The rewrite alone: a crossing of maxAllowedSize with no new range.
    const history = JSON.parse(readFileSync(join(WITH_UI, REWRITE, 'context_history.json'), 'utf8')) as unknown[];
    expect(history.length).toBeGreaterThan(1);
    // The context-window error rewrote the first user message.
    const errorHistory = JSON.parse(readFileSync(join(WITH_UI, CONTEXT_ERROR, 'context_history.json'), 'utf8')) as [number][];
    expect(errorHistory.map((e) => e[0])).toContain(0);
  });
});

describe('Cline source replay', () => {
  it('holds to the recorded input of every task, with and without ui_messages.json', async () => {
    const rows = (await expectSourceReplayWithin5Percent([WITH_UI, HISTORY_ONLY])) as unknown as {
      id: string;
      file: string;
      fidelity: { corrected: string[]; estimated: string[] };
      recorded: { sourceCost?: number; cost: { withCache: number } };
    }[];
    expect(rows).toHaveLength(TASKS.length * 2);
    // The fidelity table says whether each task's points were read or inferred.
    for (const row of rows) {
      const said = [...row.fidelity.corrected, ...row.fidelity.estimated].join('; ');
      expect(said, row.file).toMatch(row.file.startsWith(WITH_UI) ? /Cline's deleted ranges read/ : /Cline's deleted ranges inferred/);
      // Cline's own cost of its requests, beside the cost at tcompact's prices.
      expect(row.recorded.sourceCost, row.file).toBeCloseTo(
        requestsOf(row.id).reduce((n, r) => n + r.cost, 0),
        6,
      );
      expect(row.recorded.cost.withCache).toBeGreaterThan(0);
    }
  }, 120_000);
});
