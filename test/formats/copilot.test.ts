import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { isAssistant } from '../../src/model/message.js';
import { sessionTotals } from '../../src/model/recorded.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Sessions written by test/fixtures/copilot/generate.mjs in Copilot CLI's own shapes (see test/fixtures/copilot/README.md).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'copilot');
const STATE = join(HOME, 'session-state');
const COMPACTED = '3f0c2a6e-8b1d-4c7a-9e52-1d4b7a0c9e11';
const RESUMED = '9a7e41d2-5c3b-4f60-8d19-6e2b0c4f7a38';
const FLAT = 'c51d7e08-2f4a-4b93-a6e0-7b8c9d0e1f23';
const LEGACY = 'e0b4c6d8-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const LEGACY_FILE = join(HOME, 'history-session-state', `session_${LEGACY}_1758211451312.json`);

interface Tokens {
  inputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
}

/**
 * `COPILOT_HOME=test/fixtures/copilot npx -y ccusage@20.0.24 copilot session --json --offline` (HOME at an empty
 * folder), per session. ccusage reads `session-state/<id>/events.jsonl` only: the flat and the legacy layouts are not
 * among its sessions.
 */
const CCUSAGE: Record<string, Tokens> = {
  [COMPACTED]: { inputTokens: 126995, cacheCreationTokens: 9830, cacheReadTokens: 41200, outputTokens: 680 },
  [RESUMED]: { inputTokens: 730, cacheCreationTokens: 5120, cacheReadTokens: 33900, outputTokens: 82 },
};

/**
 * What the records give. Where the session ran once, ccusage's figures. The resumed session ran three times: Copilot
 * writes each run's usage in the shutdown that ends it, counted from zero after a resume, so the session's usage is the
 * sum of the two shutdowns (uncached 600 + 730, writes 5,120 + 1,830, reads 24,400 + 33,900, output 82 + 74) plus the
 * output of the third run's reply (120), which ended with no shutdown. ccusage@20.0.24 keeps each field's largest
 * value across the shutdowns instead (730, 5,120, 33,900, 82) and drops the third run.
 */
const RECORDED: Record<string, Tokens> = {
  [COMPACTED]: CCUSAGE[COMPACTED],
  [RESUMED]: { inputTokens: 600 + 730, cacheCreationTokens: 5120 + 1830, cacheReadTokens: 24400 + 33900, outputTokens: 82 + 74 + 120 },
  [FLAT]: { inputTokens: 1420, cacheCreationTokens: 0, cacheReadTokens: 11520, outputTokens: 31 },
};

async function read() {
  const items = await collect(readInputs([HOME], READ));
  return { items, transcripts: Object.fromEntries(transcriptsOf(items).map((t) => [t.transcript.id, t])) };
}

const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

describe('GitHub Copilot CLI sessions', () => {
  it('detects the three layouts as copilot', async () => {
    expect(await detectFormat(join(STATE, COMPACTED, 'events.jsonl'), READ)).toEqual({ ok: true, format: 'copilot', layout: 'jsonl' });
    expect(await detectFormat(join(STATE, `${FLAT}.jsonl`), READ)).toEqual({ ok: true, format: 'copilot', layout: 'jsonl' });
    expect(await detectFormat(LEGACY_FILE, READ)).toEqual({ ok: true, format: 'copilot', layout: 'json' });
  });

  it('accounts for every line: kept in the transcript or skipped by event type', async () => {
    const { items, transcripts } = await read();
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    const file = join(STATE, COMPACTED, 'events.jsonl');
    const skipped = items.filter((i) => i.kind === 'skipped' && i.file === file).map((i) => (i.kind === 'skipped' ? i.reason : ''));
    expect(transcripts[COMPACTED].lines + skipped.length).toBe(lineCount(file));
    expect(skipped).toContain('record:subagent/assistant.message');
    expect(skipped).toContain('record:hook.start');
    expect(skipped.filter((r) => r === 'record:tool.execution_start')).toHaveLength(3);
    expect(transcripts[LEGACY].lines).toBe(1);
  });

  it('reads prompts as sent, reasoning, tool calls and results, chunks of one call, and the compaction summary', async () => {
    const t = (await read()).transcripts[COMPACTED].transcript;
    expect(t.messages.map((m) => m.role).join(' ')).toBe('system user assistant tool tool assistant assistant tool user user assistant');
    expect(t.messages[1].content).toMatch(/^<current_datetime>/);
    const [first, second, third] = t.messages.filter(isAssistant);
    expect(first).toMatchObject({
      reasoning_content: expect.stringMatching(/^The report divides/),
      reasoning_not_resent: true,
      recorded_output_tokens: 96,
      tool_calls: [{ id: 'call_a1', function: { name: 'view', arguments: '{"path":"/home/dev/inventory/src/report.ts"}' } }, { id: 'call_a2' }],
    });
    expect(first.usage).toBeUndefined();
    expect(t.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_a2')).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Path does not exist/),
    });
    expect(second.continues_call).toBeUndefined();
    expect(third).toMatchObject({ continues_call: true, tool_calls: [{ id: 'call_a3', function: { name: 'str_replace' } }] });
    expect(t.messages[8]).toMatchObject({ role: 'user', is_compact_summary: true, content: expect.stringMatching(/^<overview>/) });
    expect(t.metadata?.compactions).toEqual([{ index: 8, summaryIndex: 8, preTokens: 118402, compactionTrigger: 'auto', messagesRemoved: 11 }]);
    const [point] = sourceCompactionPoints(t);
    expect(point).toMatchObject({ index: 8, kinds: ['compacted'], summary: t.messages[8] });
    expect(t.metadata).toMatchObject({ sessionId: COMPACTED, cwd: '/home/dev/inventory', copilotVersion: '1.0.31', models: ['claude-sonnet-4.5', 'gpt-5.4'] });
  });

  it('reads the flat late-2025 layout and the legacy history JSON', async () => {
    const { transcripts } = await read();
    expect(transcripts[FLAT].transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const legacy = transcripts[LEGACY].transcript;
    expect(legacy.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(legacy.metadata).toMatchObject({ layout: 'history-session-state', startTime: '2025-09-18T16:04:11.312Z', timelineEntries: 3 });
    expect(sessionTotals(legacy)).toBeUndefined();
  });

  it.each(Object.keys(RECORDED))("keeps the runs' summed usage as the session's, on no reply: %s", async (id) => {
    const t = (await read()).transcripts[id].transcript;
    expect(recordedUsage(t)).toBeUndefined();
    const totals = sessionTotals(t)!;
    const got = {
      inputTokens: totals.tokens.uncached,
      cacheCreationTokens: totals.tokens.written,
      cacheReadTokens: totals.tokens.read,
      outputTokens: totals.tokens.output,
    };
    expect(got).toEqual(RECORDED[id]);
    // Where ccusage read the session and it ran once, the same figures.
    if (id === COMPACTED) expect(got).toEqual(CCUSAGE[id]);
  });

  it('sums a resumed session over its runs where ccusage keeps the largest of each field, and keeps the output of a run without shutdown', async () => {
    const t = (await read()).transcripts[RESUMED].transcript;
    expect(t.metadata).toMatchObject({ resumes: 2, copilotUsage: { runs: 3, runsWithoutShutdown: 1, outputOfRunsWithoutShutdown: 120 } });
    // The `/clear` before the third run: the context starts over empty there.
    expect(t.metadata?.compactions).toEqual([{ index: 8, replacementFrom: 8, replacementTo: 8, cleared: true, messagesRemoved: 8 }]);
    expect(sourceCompactionPoints(t)).toMatchObject([{ index: 8, callIndex: 9, kept: [] }]);
    const totals = sessionTotals(t)!.tokens;
    const ccusage = CCUSAGE[RESUMED];
    expect(totals.uncached + totals.written + totals.read).toBe(66580);
    expect(ccusage.inputTokens + ccusage.cacheCreationTokens + ccusage.cacheReadTokens).toBe(39750);
    expect(totals.output).toBeGreaterThan(ccusage.outputTokens);
  });

  it('reads events without id and parentId (the shape earlier builds are quoted in), and gives a bad event its own error', async () => {
    const dir = join(tempDir('copilot-bad-'), 'session-state', 'early'); // removed when the test ends
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'events.jsonl');
    const at = '2026-02-09T09:28:30.798Z';
    const lines = [
      { type: 'session.start', timestamp: at, data: { sessionId: 'early-1', context: { cwd: '/home/dev/project' } } },
      { type: 'user.message', timestamp: at, data: { content: 'Add a health check endpoint' } },
      { type: 'assistant.message', timestamp: at, data: { content: 42 } },
      { type: 'assistant.message', timestamp: at, data: { content: 'Added /health.', outputTokens: 12 } },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'copilot', layout: 'jsonl' });
    const items = await collect(readInputs([file], READ));
    expect(items.filter((i) => i.kind === 'error').map((i) => (i.kind === 'error' ? [i.record.line, i.record.code, i.record.message] : []))).toEqual([
      [3, 'E_SCHEMA', 'assistant.message: expected a string content'],
    ]);
    const [t] = transcriptsOf(items);
    expect([t.transcript.id, t.lines, t.transcript.messages.map((m) => m.role)]).toEqual(['early-1', 3, ['user', 'assistant']]);
    // A run without shutdown: its reply's output is the session's whole recorded usage.
    expect(sessionTotals(t.transcript)?.tokens).toMatchObject({ uncached: 0, read: 0, output: 12 });
  });

  it('stats shows them as session totals; the source replay says the calls are not recorded one by one', async () => {
    const stats = await runMain(['stats', STATE]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(
      'recorded usage: 66,580 input tokens (58,300 cache reads, 6,950 cache writes, 1,330 uncached), 276 output, as session totals: the calls are not recorded one by one',
    );
    const out = join(tempDir('copilot-sim-'), 'sim'); // removed when the test ends
    const sim = await runMain(['simulate', STATE, '--policy', 'source', '--window', '200000', '--out', out]);
    expect(sim.code, sim.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { id: string; fidelity?: { perCall: boolean; calls: { recorded: number }; input: { recorded: number } } }[];
    };
    expect(report.perTranscript.find((t) => t.id === RESUMED)?.fidelity).toMatchObject({ perCall: false, calls: { recorded: 0 }, input: { recorded: 66580 } });
    expect(report.perTranscript.find((t) => t.id === COMPACTED)?.fidelity).toMatchObject({ perCall: false, input: { recorded: 126995 + 9830 + 41200 } });
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toContain('not recorded one by one');
  });
});
