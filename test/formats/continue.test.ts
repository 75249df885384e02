import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

// Sessions in Continue's layout (~/.continue/sessions), from its own types (test/fixtures/continue/README.md).
const SESSIONS = join(import.meta.dirname, '..', 'fixtures', 'continue', 'sessions');
const IDE = join(SESSIONS, '3f9a2c1e-7b4d-4e8f-a1c2-5d6e7f8a9b0c.json');
const CLI = join(SESSIONS, '1f2e3d4c-5b6a-4789-8a9b-0c1d2e3f4a5b.json');

async function read(file: string) {
  const items = await collect(readInputs([file], READ));
  expect(errorsOf(items)).toEqual([]);
  return transcriptsOf(items)[0].transcript;
}

describe('Continue sessions', () => {
  it('land on their own reader, not SWE-agent; the sessions index is no session', async () => {
    for (const f of [IDE, CLI]) expect(await detectFormat(f, READ)).toMatchObject({ ok: true, format: 'continue' });
    expect(await detectFormat(join(SESSIONS, 'sessions.json'), READ)).toMatchObject({ ok: false, code: 'E_FORMAT' });
  });

  it('rebuilds the messages as Continue sends them: context items, thinking, tool results from the call states', async () => {
    const t = await read(IDE);
    expect(t.id).toBe('3f9a2c1e-7b4d-4e8f-a1c2-5d6e7f8a9b0c');
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'user', 'assistant', 'tool']);
    expect(t.messages[0].content).toEqual([
      { type: 'text', text: "```test/date.test.ts\nexpect(formatDay(now())).toBe('today');\n```\n" },
      { type: 'text', text: 'Why does test/date.test.ts fail after midnight?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
    expect(t.messages[1]).toMatchObject({
      reasoning_content: 'The test compares against the local day; the fixture clock is UTC.',
      tool_calls: [{ id: 'toolu_01' }],
    });
    expect(t.messages[2]).toMatchObject({ tool_call_id: 'toolu_01', content: expect.stringMatching(/^export function formatDay/) });
    expect(t.messages[3]).toMatchObject({ reasoning_content: 'toDateString is local.' });
    expect(t.messages[7]).toMatchObject({ tool_call_id: 'toolu_02', content: 'The user cancelled this tool call.' });
    expect(t.metadata).toMatchObject({ title: 'Fix the flaky date test', mode: 'agent', chatModelTitle: 'Claude Sonnet 4.5' });
  });

  it("marks the GUI's conversation summary, and the CLI's compaction reply, as the source's compaction", async () => {
    const ide = await read(IDE);
    const [c] = ide.metadata?.compactions as { summaryIndex: number }[];
    expect(ide.messages[c.summaryIndex]).toMatchObject({
      role: 'user',
      is_compact_summary: true,
      content: expect.stringMatching(/^Previous conversation summary:/),
    });
    const cli = await read(CLI);
    const [k] = cli.metadata?.compactions as { summaryIndex: number }[];
    expect(cli.messages[k.summaryIndex]).toMatchObject({ role: 'assistant', is_compact_summary: true, content: expect.stringMatching(/^Summary: /) });
  });

  it("has no usage from the IDE; the CLI's per reply, and its session total kept as a total", async () => {
    expect(recordedUsage(await read(IDE))).toBeUndefined();
    const cli = await read(CLI);
    // Anthropic's adapter's fields (cacheWriteTokens recorded): promptTokens is the uncached input alone.
    expect(recordedUsage(cli)).toMatchObject({ calls: 2, input: 190 + 1024 + 5400, uncachedInput: 190, cacheRead: 1024, cacheCreation: 5400, output: 60 });
    expect(cli.metadata?.sessionUsage).toMatchObject({ promptTokens: 190, completionTokens: 60, totalCost: 0.0231 });
  });
});
