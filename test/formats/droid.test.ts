import { readFileSync } from 'node:fs';
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

// Sessions written by test/fixtures/droid/generate.mjs in the shapes Droid's peers read (see test/fixtures/droid/README.md).
const SESSIONS = join(import.meta.dirname, '..', 'fixtures', 'droid', 'sessions');
const PROJECT = join(SESSIONS, '-home-dev-todo-cli');
const CURRENT = '6e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b';
const OLDER = 'a0b1c2d3-e4f5-4a6b-8c7d-0e1f2a3b4c5d';
const COMPACTED = 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f';

/**
 * `DROID_SESSIONS_DIR=test/fixtures/droid/sessions npx -y ccusage@20.0.24 droid session --json --offline`, per session:
 * `inputTokens`, `cacheCreationTokens`, `cacheReadTokens`, `outputTokens`, and `totalTokens` less those (the thinking tokens).
 */
const CCUSAGE: Record<string, { inputTokens: number; cacheCreationTokens: number; cacheReadTokens: number; outputTokens: number; thinking: number }> = {
  [CURRENT]: { inputTokens: 412, cacheCreationTokens: 21940, cacheReadTokens: 68210, outputTokens: 1380, thinking: 92182 - 412 - 21940 - 68210 - 1380 },
  [OLDER]: { inputTokens: 8210, cacheCreationTokens: 0, cacheReadTokens: 4096, outputTokens: 164, thinking: 0 },
  [COMPACTED]: { inputTokens: 96, cacheCreationTokens: 9120, cacheReadTokens: 30400, outputTokens: 410, thinking: 40026 - 96 - 9120 - 30400 - 410 },
};

async function read() {
  const items = await collect(readInputs([SESSIONS], READ));
  return { items, transcripts: Object.fromEntries(transcriptsOf(items).map((t) => [t.transcript.id, t])) };
}

describe('Factory Droid sessions', () => {
  it('detects the session file and its settings as droid', async () => {
    expect(await detectFormat(join(PROJECT, `${CURRENT}.jsonl`), READ)).toEqual({ ok: true, format: 'droid', layout: 'jsonl' });
    expect(await detectFormat(join(PROJECT, `${CURRENT}.settings.json`), READ)).toEqual({ ok: true, format: 'droid', layout: 'json' });
  });

  it('reads the messages, skips the todo record and the settings file read with its session', async () => {
    const { items, transcripts } = await read();
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    expect(items.filter((i) => i.kind === 'skipped').map((i) => (i.kind === 'skipped' ? i.reason : ''))).toEqual([
      'record:todo_state',
      'record:droid/settings',
      'record:droid/settings',
      'record:droid/settings',
    ]);
    const t = transcripts[CURRENT];
    expect(t.lines).toBe(
      readFileSync(join(PROJECT, `${CURRENT}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean).length - 1,
    );
    const roles = t.transcript.messages.map((m) => m.role).join(' ');
    expect(roles).toBe('user assistant tool tool assistant tool assistant tool assistant');
    const first = t.transcript.messages.find(isAssistant);
    expect(first).toMatchObject({ reasoning_content: expect.stringMatching(/^JSON.parse/), tool_calls: [{ id: 'toolu_d1' }, { id: 'toolu_d2' }] });
    expect(t.transcript.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'toolu_d3')).toMatchObject({ is_error: true });
    expect(t.transcript.metadata).toMatchObject({ sessionId: CURRENT, cwd: '/home/dev/todo-cli', model: 'custom:Claude-Sonnet-4.5-[Anthropic]-0' });
    expect(transcripts[OLDER].transcript.messages[0]).toMatchObject({ role: 'user', content: 'Add a --done flag to the list command.' });
  });

  it("reads Droid's own compaction as the summary it sends, then the messages after its anchor", async () => {
    const t = (await read()).transcripts[COMPACTED].transcript;
    const [c] = t.metadata?.compactions as { summaryIndex: number; keptFromIndex: number; removedCount: number }[];
    expect(t.messages.map((m) => m.role).join(' ')).toBe('user assistant tool assistant user user assistant tool assistant');
    const summary = t.messages[c.summaryIndex];
    expect(summary).toMatchObject({ role: 'user', is_compact_summary: true });
    expect(JSON.stringify(summary.content)).toMatch(
      /^\[\{"type":"text","text":"A previous instance of Droid has summarized the conversation thus far as follows:\\n\\n<summary>\\nThe user asked to rename/,
    );
    // The anchor is the reply before the last prompt: the prompt is kept after the summary, the four messages before it removed.
    expect(t.messages[c.keptFromIndex]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Also update the README.' }] });
    expect(c.removedCount).toBe(4);
    const [point] = sourceCompactionPoints(t);
    expect(point).toMatchObject({ call: 2, kinds: ['compacted'], keptFrom: c.keptFromIndex });
  });

  it.each([CURRENT, OLDER, COMPACTED])("keeps the settings' totals as the session's, on no reply: %s", async (id) => {
    const t = (await read()).transcripts[id].transcript;
    expect(recordedUsage(t)).toBeUndefined();
    expect(t.messages.some((m) => m.usage !== undefined)).toBe(false);
    const totals = sessionTotals(t)!;
    const oracle = CCUSAGE[id];
    expect({
      inputTokens: totals.tokens.uncached,
      cacheCreationTokens: totals.tokens.written,
      cacheReadTokens: totals.tokens.read,
      outputTokens: totals.tokens.output,
      thinking: totals.thinking,
    }).toEqual(oracle);
  });

  it('stats shows them as session totals; the replay says the calls are not recorded one by one', async () => {
    const stats = await runMain(['stats', SESSIONS]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(
      'recorded usage: 90,562 input tokens (68,210 cache reads, 21,940 cache writes, 412 uncached), 1,380 output, as session totals: the calls are not recorded one by one',
    );
    expect(stats.stdout).toMatch(/Recorded session totals \(3 transcripts\): 142,484 input tokens/);
    const out = join(tempDir('droid-sim-'), 'sim'); // removed when the test ends
    const sim = await runMain(['simulate', SESSIONS, '--policy', 'source', '--window', '200000', '--out', out]);
    expect(sim.code, sim.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { id: string; fidelity?: { perCall: boolean; calls: { recorded: number }; input: { recorded: number } } }[];
    };
    const current = report.perTranscript.find((t) => t.id === CURRENT);
    expect(current?.fidelity).toMatchObject({ perCall: false, calls: { recorded: 0 }, input: { recorded: 90562 } });
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toContain('not recorded one by one');
  });
});
