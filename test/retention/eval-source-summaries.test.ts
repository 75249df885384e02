import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { Evaluation, ORIGINAL_ROW, SIZED_ROW, summaryRow } from '../../src/retention/eval-run.js';
import { referenceCompactions } from '../../src/retention/reference-compaction.js';
import { renderEvaluation } from '../../src/retention/render-eval.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

const tok = getTokenizer('o200k_base');

/**
 * One fixture per source whose compaction leaves a summary in the transcript, with the span that summary replaced:
 * Codex's `compacted` everything before it; Gemini CLI's compression and pi's compaction all but the latest messages
 * they kept beside the summary; OpenCode's summary everything before its compaction request.
 */
const CASES = [
  { format: 'codex', file: 'test/fixtures/codex/rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl', from: 0, to: 7, summaryIndex: 7 },
  { format: 'gemini', file: 'test/fixtures/gemini/chats/session-2026-05-02T10-15-8d582aea.jsonl', from: 0, to: 3, summaryIndex: 6 },
  {
    format: 'pi',
    file: 'test/fixtures/pi/sessions/--home-dev-shop--/2026-03-05T09-00-00-000Z_0195a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl',
    from: 0,
    to: 10,
    summaryIndex: 20,
  },
  { format: 'opencode', file: 'test/fixtures/opencode/ses_5b2e1c7d9ffeAbCdEf012345.json', from: 0, to: 8, summaryIndex: 9 },
] as const;

async function transcriptOf(file: string) {
  for await (const item of readInputs([file], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') return item;
  throw new Error(`no transcript in ${file}`);
}

describe("eval scores each source's own summary beside checkpoint held to its size", () => {
  it.each(CASES)('$format: the span the summary replaced, its row named after the source', async ({ format, file, from, to, summaryIndex }) => {
    const item = await transcriptOf(file);
    expect(item.format).toBe(format);
    const [ref] = referenceCompactions(item.transcript);
    expect(ref).toMatchObject({ from, to, summaryIndex });
    const e = new Evaluation({ strategies: ['checkpoint'], tokenizer: tok });
    await e.add(item.transcript, { file, line: 1, format });
    const report = e.report();
    expect(report.reference.rows.map((r) => r.name)).toEqual([ORIGINAL_ROW, summaryRow(format), SIZED_ROW, 'checkpoint']);
    const [span] = report.reference.perSpan;
    expect(span).toMatchObject({ format, from, to });
    const summary = span.rows.find((r) => r.name === summaryRow(format))!;
    expect(summary.tokensAfter).toBe(totalOf(countMessage(ref.summary, tok)));
    expect(span.rows.find((r) => r.name === SIZED_ROW)).toBeDefined();
    expect(renderEvaluation(report)).toContain(`spans that the source replaced with its own summary (${format} 1)`);
  });

  it('names the summary row "source summaries" when the spans come from several sources', async () => {
    const e = new Evaluation({ strategies: ['checkpoint'], tokenizer: tok });
    for (const c of CASES.slice(0, 2)) await e.add((await transcriptOf(c.file)).transcript, { file: c.file, line: 1, format: c.format });
    const report = e.report();
    expect(report.reference.rows[1].name).toBe('source summaries');
    expect(report.reference.perSpan.map((s) => s.rows[1].name)).toEqual(['codex summary', 'gemini summary']);
    expect(renderEvaluation(report)).toContain('(codex 1, gemini 1)');
  });
});
