import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { readJsonl, runCli, tempDir } from '../pipeline/helpers.js';

/**
 * Tried as a new user would: `compact FILE --strategy summarize --model M` and `eval FILE --strategy
 * summarize --model M` on a real Claude Code session of the shared corpus (one the bundled data does not hold), against
 * the loopback OpenAI-compatible server.
 */
const SUITE = 'summarize on a real Claude Code session of the corpus (compact, eval)';
const SESSION = corpusPath('spotter', 'files', 'test', 'fixtures', 'transcripts', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
const env = { OPENAI_API_KEY: 'test-key' };
let server: FakeServer;

describe.skipIf(!hasCorpus(SUITE))(SUITE, () => {
  beforeAll(async () => {
    server = await startFakeOpenAI({});
  });
  afterAll(async () => {
    await server.close();
  });

  it('compact --strategy summarize --model: the session is summarized by the model, valid, with the usage reported', async () => {
    const dir = tempDir('corpus-summarize');
    const out = join(dir, 'out.jsonl');
    const sent = server.requests.length;
    const r = await runCli(['compact', SESSION, '--strategy', 'summarize', '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--out', out], { env });
    expect(r.code).toBe(0);
    const [t] = readJsonl<Transcript>(out);
    expect(findViolations(t.messages)).toEqual([]);
    expect(t.messages.some((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact summary of'))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'out.report.json'), 'utf8'));
    expect(report.llm.requests).toBe(server.requests.length - sent);
    expect(report.llm.requests).toBeGreaterThan(0);
    expect(report.tokens.after).toBeLessThan(report.tokens.before);
  });

  it("eval --strategy summarize --model: a scored row with its requests, beside the reference of Claude Code's own summary", async () => {
    const dir = tempDir('corpus-eval-summarize');
    const r = await runCli(['eval', SESSION, '--strategy', 'summarize', '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--out', dir], { env });
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8'));
    expect(report.rows.map((row: { name: string }) => row.name)).toEqual(['original', 'summarize']);
    const row = report.rows[1];
    expect(row.llm.requests).toBeGreaterThan(0);
    expect(row.tokensAfter).toBeLessThan(row.tokensBefore);
    expect(report.reference.spans).toBe(1);
    const lost = readFileSync(join(dir, 'lost.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const lostOnTranscript = lost.map((l) => JSON.parse(l)).filter((l) => l.strategy === 'summarize' && l.compaction === undefined);
    expect(lostOnTranscript).toHaveLength(row.score.overall.probes - row.score.overall.retained);
  });
});
