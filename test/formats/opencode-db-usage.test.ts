import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { ReplayOptionsSchema } from '../../src/replay/replay-options.js';
import { replayTranscript } from '../../src/replay/transcript-replay.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { otherSession, readExport, writeOpenCodeDatabase } from '../helpers/opencode-database.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

const FIRST = readExport(join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));
const SECOND = otherSession(FIRST, 'Kk2', '/home/dev/api-server', 86_400_000);
const MESSAGES = FIRST.messages.length + SECOND.messages.length;

/**
 * `npx ccusage@20.0.24 opencode session --json --offline` with HOME holding `.local/share/opencode/opencode.db`, and
 * `npx ccusage@20.0.24 kilo session --json --offline` with `.local/share/kilo/kilo.db`, each database written as the
 * test below writes it (both sessions, the last four messages in the WAL, a killed transaction after them): the same
 * figures for each session of both stores. ccusage sums each message's `tokens`; tcompact reads each step's
 * `step-finish` tokens, whose sum they are.
 */
const CCUSAGE = {
  [FIRST.info.id]: { inputTokens: 11812, outputTokens: 504, cacheCreationTokens: 11541, cacheReadTokens: 33278 },
  [SECOND.info.id]: { inputTokens: 11812, outputTokens: 504, cacheCreationTokens: 11541, cacheReadTokens: 33278 },
};

describe.each(['opencode.db', 'kilo.db'])('recorded usage of %s', (name) => {
  async function read() {
    const file = join(tempDir('opencode-db-usage'), name);
    writeOpenCodeDatabase(file, [FIRST, SECOND], { walFrom: MESSAGES - 4, uncommittedTail: true });
    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    return transcriptsOf(items);
  }

  it("equals ccusage's, session by session", async () => {
    const sessions = await read();
    expect(sessions.map((t) => t.transcript.id)).toEqual(Object.keys(CCUSAGE));
    for (const t of sessions) {
      const oracle = CCUSAGE[t.transcript.id];
      expect(recordedUsage(t.transcript)).toMatchObject({
        uncachedInput: oracle.inputTokens,
        cacheCreation: oracle.cacheCreationTokens,
        cacheRead: oracle.cacheReadTokens,
        input: oracle.inputTokens + oracle.cacheCreationTokens + oracle.cacheReadTokens,
        output: oracle.outputTokens,
      });
    }
  });

  it.each([1, 'recorded'] as const)(
    "replays each session with the source's own compaction within 5 percent of its recorded input, token ratio %s",
    async (tokenRatio) => {
      const tokenizer = getTokenizer();
      const options = ReplayOptionsSchema.parse({ window: 200_000, basePrompt: 'recorded', tokenRatio });
      for (const t of await read()) {
        const { result } = await replayTranscript(t.transcript, { file: t.file, line: t.line }, [resolvePolicy('source', tokenizer)], options, { tokenizer });
        const recorded = result.recorded?.input ?? 0;
        expect(recorded).toBe(recordedUsage(t.transcript)?.input);
        // 54,801 billed against 56,631 recorded (-3.2%) for each session.
        expect(Math.abs(result.policies.source.billedInput / recorded - 1)).toBeLessThan(0.05);
      }
    },
  );
});
