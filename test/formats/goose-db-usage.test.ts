import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { sessionTotals } from '../../src/model/recorded.js';
import { sessionTotalUsage } from '../../src/replay/billing/recorded-usage.js';
import { gooseFixtureSessions, writeGooseDatabase } from '../helpers/goose-database.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

/**
 * `GOOSE_PATH_ROOT=<dir> npx -y ccusage@20.0.24 goose session --json --offline`, with `<dir>/data/sessions/sessions.db`
 * written as the test below writes it (both fixture sessions, the messages from the 21st on in the WAL): ccusage reads
 * the accumulated counters of each session (else the last request's), and counts the total beyond input and output as
 * reasoning billed as output (`totalTokens`).
 */
const CCUSAGE = {
  '20251112_094402': { inputTokens: 40911, outputTokens: 966, totalTokens: 41877, modelsUsed: ['claude-sonnet-4-20250514'] },
  '20251113_1': { inputTokens: 11000, outputTokens: 1100, totalTokens: 12400, modelsUsed: ['gpt-4o'] },
};

describe("recorded usage of goose's sessions.db", () => {
  it("equals ccusage's, session by session, as session totals with no call of its own", async () => {
    const file = join(tempDir('goose-db-usage'), 'sessions.db');
    writeGooseDatabase(file, gooseFixtureSessions(), { walFrom: 20 });
    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    const sessions = transcriptsOf(items);
    expect(sessions.map((t) => t.transcript.id)).toEqual(Object.keys(CCUSAGE));
    for (const t of sessions) {
      const oracle = CCUSAGE[t.transcript.id as keyof typeof CCUSAGE];
      const totals = sessionTotals(t.transcript);
      expect(totals?.model).toBe(oracle.modelsUsed[0]);
      expect(sessionTotalUsage(t.transcript)).toMatchObject({
        uncachedInput: oracle.inputTokens,
        cacheRead: 0,
        cacheCreation: 0,
        output: oracle.outputTokens,
        calls: 0,
      });
      expect(oracle.inputTokens + oracle.outputTokens + (totals?.thinking ?? 0)).toBe(oracle.totalTokens);
    }
  });
});
