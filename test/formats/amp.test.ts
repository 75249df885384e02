import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAmp } from '../../src/formats/amp.js';
import { detectFormat } from '../../src/formats/detect.js';
import { isAssistant } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { embeddedUsage, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { expectSourceReplayWithin5Percent } from '../helpers/source-replay.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

// Threads written by test/fixtures/amp/generate.mjs in the shapes Amp's peers read (see test/fixtures/amp/README.md).
const HOME = join(import.meta.dirname, '..', 'fixtures', 'amp');
const CURRENT = join(HOME, 'threads', 'T-019a3f52-8c1d-7e40-9b6a-2d5e8f1c3a70.json');
const LEDGER = join(HOME, 'threads', 'T-5c0d7e21-3a4b-4c5d-8e6f-7a8b9c0d1e2f.json');

/**
 * `AMP_DATA_DIR=test/fixtures/amp npx -y ccusage@20.0.24 amp session --json --offline`, per session: `inputTokens`
 * (uncached), `cacheCreationTokens`, `cacheReadTokens`, `outputTokens`. The ledger thread's figures include the
 * title call (310 input, 12 output), which prices no message of the thread.
 */
const CCUSAGE = {
  [CURRENT]: { inputTokens: 27, cacheCreationTokens: 15400, cacheReadTokens: 66291, outputTokens: 344 },
  [LEDGER]: { inputTokens: 329, cacheCreationTokens: 11883, cacheReadTokens: 31899, outputTokens: 134 },
};

async function transcript(file: string): Promise<Transcript> {
  const items = await collect(readAmp(file, READ));
  expect(items.filter((i) => i.kind !== 'transcript')).toEqual([]);
  const [t] = transcriptsOf(items);
  return t.transcript;
}

describe('Amp threads', () => {
  it.each([CURRENT, LEDGER])('is detected as amp: %s', async (file) => {
    expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'amp', layout: 'json' });
  });

  it('reads thinking, tool calls and results, a rejected call, and leaves out the notice', async () => {
    const t = await transcript(CURRENT);
    expect(t.id).toBe('T-019a3f52-8c1d-7e40-9b6a-2d5e8f1c3a70');
    expect(t.messages.map((m) => m.role).join(' ')).toBe(
      'user assistant tool tool assistant tool assistant tool user assistant tool assistant tool assistant user assistant',
    );
    const [first] = t.messages.filter(isAssistant);
    expect(first.reasoning_content).toMatch(/^The crash is probably in the store parser/);
    expect(first.tool_calls?.map((c) => c.id)).toEqual(['toolu_01A1', 'toolu_01A2']);
    const rejected = t.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'toolu_01C1');
    expect(rejected).toMatchObject({ is_error: true, content: '[rejected-by-user]', amp_status: 'rejected-by-user' });
    const test = t.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'toolu_01B1');
    expect(JSON.parse(test?.content as string)).toMatchObject({ exitCode: 1 });
    expect(t.metadata).toMatchObject({ notices: 1, cwd: '/home/dev/todo-cli', models: ['claude-sonnet-4-5-20250929'], relationships: [{ type: 'handoff' }] });
    expect(t.metadata?.compactions).toBeUndefined();
    const cancelled = t.messages.at(-1);
    expect(cancelled).toMatchObject({ role: 'assistant', amp_state: 'cancelled', unpriced_request: true });
    expect(cancelled?.usage).toBeUndefined();
  });

  it.each([CURRENT, LEDGER])('records the usage ccusage reads, call by call: %s', async (file) => {
    const t = await transcript(file);
    const own = recordedUsage(t)!;
    const outside = embeddedUsage(t, 'unknown');
    const sum = (k: 'uncachedInput' | 'cacheCreation' | 'cacheRead' | 'output') => own[k] + outside.reduce((n, e) => n + e[k], 0);
    const oracle = CCUSAGE[file];
    expect({
      inputTokens: sum('uncachedInput'),
      cacheCreationTokens: sum('cacheCreation'),
      cacheReadTokens: sum('cacheRead'),
      outputTokens: sum('output'),
    }).toEqual(oracle);
  });

  it('prices the older threads from the ledger: each event on the message it names, the title call beside them', async () => {
    const t = await transcript(LEDGER);
    const calls = t.messages.filter(isAssistant).filter((m) => m.usage !== undefined);
    expect(calls).toHaveLength(4);
    const doc = JSON.parse(readFileSync(LEDGER, 'utf8')) as { usageLedger: { events: { toMessageId?: number; tokens: { input: number } }[] } };
    const priced = doc.usageLedger.events.filter((e) => e.toMessageId !== undefined);
    expect(calls.map((m) => (m.usage as { input_tokens: number }).input_tokens)).toEqual(priced.map((e) => e.tokens.input));
    expect(t.metadata?.embeddedCalls).toEqual([{ agentId: 'usage-ledger', calls: [expect.objectContaining({ model: 'claude-3-5-haiku-20241022' })] }]);
  });

  it('refuses a thread whose messages are not Amp messages', async () => {
    const dir = tempDir('amp-bad-'); // removed when the test ends
    const file = join(dir, 'T-bad.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify({ v: 0, id: 'T-bad', created: 1, messages: [{ role: 'system', content: 'x' }] }));
    const items = await collect(readAmp(file, READ));
    expect(items).toEqual([
      expect.objectContaining({ kind: 'error', record: expect.objectContaining({ code: 'E_SCHEMA', message: expect.stringContaining('messages[0]') }) }),
    ]);
  });

  it('simulate: the source replay within 5% of each thread', async () => {
    const rows = await expectSourceReplayWithin5Percent([join(HOME, 'threads')]);
    expect(rows).toHaveLength(2);
  });
});
