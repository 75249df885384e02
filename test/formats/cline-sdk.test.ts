import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClineSdk } from '../../src/formats/cline-sdk.js';
import { detectFormat } from '../../src/formats/detect.js';
import { isAssistant } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { expectSourceReplayWithin5Percent, sourceReplayRows } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Sessions written by test/fixtures/cline-sdk/generate.mjs as Cline's SDK writes them (see its README.md).
// ccusage 20.0.24 has no Cline command (`npx -y ccusage@20.0.24 --help` lists none): there is no peer figure to match.
const SESSIONS = join(import.meta.dirname, '..', 'fixtures', 'cline-sdk', 'data', 'sessions');
const AGENTIC = join(SESSIONS, '1784094124598_rruoq');
const BASIC = join(SESSIONS, '1784200000000_basic');
const STALE = join(SESSIONS, '1784300000000_stale');
const file = (dir: string, name: string) => join(dir, name);
const messagesOf = (dir: string) => file(dir, `${dir.slice(dir.lastIndexOf('/') + 1)}.messages.json`);

async function read(path: string): Promise<{ t: Transcript; warnings: string[] }> {
  const items = await collect(readClineSdk(path, READ));
  expect(items.filter((i) => i.kind !== 'transcript')).toEqual([]);
  const [item] = transcriptsOf(items);
  return { t: item.transcript, warnings: item.warnings };
}

describe("Cline's SDK sessions", () => {
  it.each([
    messagesOf(AGENTIC),
    file(AGENTIC, 'explorer.messages.json'),
    file(AGENTIC, '1784094124598_rruoq.compaction.json'),
    file(AGENTIC, '1784094124598_rruoq.json'),
  ])('is detected by its schema as cline-sdk: %s', async (path) => {
    expect(await detectFormat(path, READ)).toEqual({ ok: true, format: 'cline-sdk', layout: 'json' });
  });

  it('reads usage from each reply metrics, the cache out of inputTokens, and Cline cost beside it', async () => {
    const { t } = await read(messagesOf(AGENTIC));
    expect(t.id).toBe('1784094124598_rruoq');
    const replies = t.messages.filter(isAssistant).filter((m) => m.is_compact_summary !== true);
    const first = replies[0];
    // The generator's first call: 7,200 + the request's tokens, nothing cached before it, 3 uncached.
    expect(first.usage).toEqual({
      input_tokens: 3,
      cache_creation_input_tokens: expect.any(Number),
      cache_read_input_tokens: 0,
      output_tokens: expect.any(Number),
    });
    expect(first.cost).toBeGreaterThan(0);
    expect(first.model).toBe('anthropic/claude-sonnet-4.6');
    expect(first.reasoning_content).toBe('Read src/components/ui/button.tsx first.');
    // The first message of a two-message turn carries no metrics: no call is billed for it.
    expect(replies.filter((m) => m.unpriced_request === true).map((m) => m.content)).toEqual(['Checking the result.']);
    // The file block is sent as Cline's providers send it.
    expect(JSON.stringify(t.messages[0].content)).toContain('<file_content path=\\"/home/dev/sidebar-app/src/components/agent-sidebar.tsx\\">');
  });

  it('takes the compaction sidecar as a truncation point: its messages, then the rest of the transcript', async () => {
    const { t } = await read(messagesOf(AGENTIC));
    const summaries = t.messages.flatMap((m, i) => (m.is_compact_summary === true ? [i] : []));
    expect(summaries).toHaveLength(2);
    expect(t.metadata?.compactions).toEqual([{ index: summaries[0], keptHeadTo: 0, keptFromIndex: summaries[0], truncation: true }]);
    const [point] = sourceCompactionPoints(t);
    expect(point).toMatchObject({ kinds: ['truncation'], keptHead: 0, keptFrom: summaries[0], call: 4 });
    expect(t.metadata?.clineContext).toMatchObject({ points: 'recorded', cuts: 1, replaced: 9, workingMessages: 2 });
  });

  it('keeps the head the state kept as written (basic compaction keeps the first request)', async () => {
    const { t } = await read(messagesOf(BASIC));
    const summaries = t.messages.flatMap((m, i) => (m.is_compact_summary === true ? [i] : []));
    expect(summaries).toHaveLength(1);
    expect(t.messages[summaries[0]].content).toEqual(
      expect.arrayContaining([expect.objectContaining({ text: expect.stringContaining('Earlier context was compacted') })]),
    );
    expect(t.metadata?.compactions).toEqual([{ index: summaries[0], keptHeadTo: 1, keptFromIndex: summaries[0], truncation: true }]);
  });

  it('leaves out a sidecar the SDK would not project, and says so', async () => {
    const { t, warnings } = await read(messagesOf(STALE));
    expect(t.metadata?.compactions).toBeUndefined();
    expect(t.messages.some((m) => m.is_compact_summary === true)).toBe(false);
    expect(warnings).toEqual(["1784300000000_stale.compaction.json not used: its last replaced message is msg_other_1, the transcript's is msg_stale_1"]);
  });

  it('says so when the sidecar does not parse', async () => {
    const copy = join(tempDir('cline-sdk-bad-sidecar'), '1784094124598_rruoq');
    cpSync(AGENTIC, copy, { recursive: true });
    writeFileSync(join(copy, '1784094124598_rruoq.compaction.json'), '{"version": 1, "messages": [');
    const { t, warnings } = await read(messagesOf(copy));
    expect(t.metadata?.compactions).toBeUndefined();
    expect(warnings).toEqual(['1784094124598_rruoq.compaction.json not used: not JSON, or over 64 MiB']);
  });

  it('skips the sidecar and the manifest given alone, each as one counted unit', async () => {
    const items = await collect(readClineSdk(file(AGENTIC, '1784094124598_rruoq.compaction.json'), READ));
    expect(items.map((i) => i.kind === 'skipped' && i.reason)).toEqual(['record:cline-sdk/compaction']);
    const manifest = await collect(readClineSdk(file(AGENTIC, '1784094124598_rruoq.json'), READ));
    expect(manifest.map((i) => i.kind === 'skipped' && i.reason)).toEqual(['record:cline-sdk/manifest']);
  });

  it('replays what Cline sent within 5% of the record, and not without the sidecar', async () => {
    const rows = await expectSourceReplayWithin5Percent([SESSIONS]);
    expect(rows).toHaveLength(4);
    // Without its sidecar the session seems to send its whole history after the compaction: far over the record.
    const copy = join(tempDir('cline-sdk-no-sidecar'), '1784094124598_rruoq');
    cpSync(AGENTIC, copy, { recursive: true });
    rmSync(join(copy, '1784094124598_rruoq.compaction.json'));
    const [row] = await sourceReplayRows([messagesOf(copy)]);
    expect(row.policies.source.billedInput / row.recorded.input - 1).toBeGreaterThan(0.05);
  });
});
