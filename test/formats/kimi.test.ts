import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { isAssistant } from '../../src/model/message.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { expectSourceReplayWithin5Percent } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Sessions written by test/fixtures/kimi/generate.mjs in the shapes Kimi CLI writes (see test/fixtures/kimi/README.md).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'kimi');
const SESSIONS = join(HOME, 'sessions', '34a6993d67e48728f49d001d6f91d44c');
const COMPACTED = '3f1c9a2e-6b7d-4e58-9a0b-1c2d3e4f5a6b';
const REVERTED = '8d2e4f60-1a3b-4c5d-9e7f-a0b1c2d3e4f5';
const CLEARED = 'c4d5e6f7-0a1b-4c2d-8e3f-405162738495';
const LEGACY = 'e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7';

/**
 * `KIMI_DATA_DIR=test/fixtures/kimi npx -y ccusage@20.0.24 kimi session --json --offline`, per session: `inputTokens`
 * (Kimi's `input_other`), `cacheCreationTokens`, `cacheReadTokens`, `outputTokens`.
 */
const CCUSAGE: Record<string, { inputTokens: number; cacheCreationTokens: number; cacheReadTokens: number; outputTokens: number }> = {
  [COMPACTED]: { inputTokens: 23482, cacheCreationTokens: 0, cacheReadTokens: 48128, outputTokens: 291 },
  [REVERTED]: { inputTokens: 13040, cacheCreationTokens: 0, cacheReadTokens: 16896, outputTokens: 107 },
  [CLEARED]: { inputTokens: 11465, cacheCreationTokens: 0, cacheReadTokens: 16128, outputTokens: 141 },
  [LEGACY]: { inputTokens: 7255, cacheCreationTokens: 0, cacheReadTokens: 5376, outputTokens: 56 },
};

async function read() {
  const items = await collect(readInputs([join(HOME, 'sessions')], READ));
  return { items, transcripts: Object.fromEntries(transcriptsOf(items).map((t) => [t.transcript.id, t])) };
}

describe('Kimi CLI sessions', () => {
  it('detects the context files and the wire log as kimi', async () => {
    for (const name of ['context.jsonl', 'context_1.jsonl', 'wire.jsonl'])
      expect(await detectFormat(join(SESSIONS, COMPACTED, name), READ)).toEqual({ ok: true, format: 'kimi', layout: 'jsonl' });
  });

  it("skips the share folder's kimi.json, whose work directories the sessions are read with", async () => {
    const items = await collect(readInputs([HOME], READ));
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    expect(items.filter((i) => i.kind === 'skipped' && i.reason === 'record:kimi/work-dirs')).toHaveLength(1);
  });

  it('reads one transcript per session and accounts for every line once', async () => {
    const { items, transcripts } = await read();
    expect(Object.keys(transcripts).sort()).toEqual([COMPACTED, REVERTED, CLEARED, LEGACY]);
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean).length;
    for (const id of [COMPACTED, REVERTED, CLEARED, LEGACY]) {
      const dir = join(SESSIONS, id);
      expect(transcripts[id].lines).toBe(lines(join(dir, 'context.jsonl')));
      const skipped = items.filter((i) => i.kind === 'skipped' && i.file.startsWith(dir));
      const rotated = id === LEGACY ? 0 : lines(join(dir, 'context_1.jsonl'));
      expect(skipped.filter((i) => i.kind === 'skipped' && i.reason === 'record:kimi/rotated-context')).toHaveLength(rotated);
      expect(skipped.filter((i) => i.kind === 'skipped' && i.reason === 'record:kimi/wire')).toHaveLength(lines(join(dir, 'wire.jsonl')));
      expect(transcripts[id].warnings).toEqual([]);
      expect(transcripts[id].transcript.metadata).toMatchObject({ cwd: '/home/dev/todo-cli', sessionId: id });
    }
  });

  it('takes the rotated context before the compaction and marks what the compaction kept', async () => {
    const t = (await read()).transcripts[COMPACTED].transcript;
    expect(t.messages[0].role).toBe('system');
    const [compaction] = t.metadata?.compactions as { summaryIndex: number; replacementFrom: number; replacementTo: number }[];
    const kept = t.messages.slice(compaction.replacementFrom, compaction.replacementTo);
    expect(kept.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(kept.every((m) => m.is_compact_summary === true && m.usage === undefined)).toBe(true);
    expect(JSON.stringify(t.messages[compaction.summaryIndex].content)).toContain('Previous context has been compacted');
    const first = t.messages.find(isAssistant);
    expect(first?.reasoning_content).toMatch(/^Probably JSON.parse on empty text/);
    expect(first?.tool_calls?.[0]).toMatchObject({ id: 'ReadFile:0', function: { name: 'ReadFile', arguments: '{"path":"src/store.ts"}' } });
  });

  it("marks a D-Mail's revert as the history starting over from the repeated messages", async () => {
    const t = (await read()).transcripts[REVERTED].transcript;
    const [revert] = t.metadata?.compactions as { revert: boolean; replacementFrom: number; replacementTo: number }[];
    expect(revert.revert).toBe(true);
    expect(t.messages.slice(revert.replacementFrom, revert.replacementTo).map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(t.messages[revert.replacementTo].content)).toContain('D-Mail');
  });

  it('marks a /clear as the context starting over empty, before the next prompt', async () => {
    const t = (await read()).transcripts[CLEARED].transcript;
    const [clear] = t.metadata?.compactions as { cleared: boolean; index: number; replacementFrom: number; replacementTo: number }[];
    expect(clear).toMatchObject({ cleared: true, replacementFrom: clear.index, replacementTo: clear.index });
    expect(JSON.stringify(t.messages[clear.index].content)).toContain('Rename the --all flag');
    expect(t.metadata).toMatchObject({ clears: 1 });
  });

  it('reads the older layout: no system prompt record, no header in the wire log', async () => {
    const t = (await read()).transcripts[LEGACY].transcript;
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.messages.filter((m) => m.usage !== undefined)).toHaveLength(2);
  });

  it("without a wire log, takes each reply's input and output from the _usage records around it", async () => {
    const dir = join(tempDir('kimi-no-wire-'), COMPACTED); // removed when the test ends
    mkdirSync(dir);
    for (const name of ['context_1.jsonl', 'context.jsonl']) copyFileSync(join(SESSIONS, COMPACTED, name), join(dir, name));
    const [item] = transcriptsOf(await collect(readInputs([join(dir, 'context.jsonl')], READ)));
    expect(item.transcript.metadata).toMatchObject({ usageFrom: 'context' });
    const usage = recordedUsage(item.transcript)!;
    const oracle = CCUSAGE[COMPACTED];
    expect({ calls: usage.calls, input: usage.input, output: usage.output }).toEqual({
      calls: 7,
      input: oracle.inputTokens + oracle.cacheReadTokens,
      output: oracle.outputTokens,
    });
  });

  it.each([COMPACTED, REVERTED, CLEARED, LEGACY])('records the usage ccusage reads, step by step: %s', async (id) => {
    const usage = recordedUsage((await read()).transcripts[id].transcript)!;
    const oracle = CCUSAGE[id];
    expect({
      inputTokens: usage.uncachedInput,
      cacheCreationTokens: usage.cacheCreation,
      cacheReadTokens: usage.cacheRead,
      outputTokens: usage.output,
    }).toEqual(oracle);
  });

  it('simulate: the source replay within 5% of each session', async () => {
    const rows = await expectSourceReplayWithin5Percent([join(HOME, 'sessions')]);
    expect(rows).toHaveLength(4);
  });
});
