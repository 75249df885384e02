import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Evaluation, ORIGINAL_ROW, REFERENCE_ROW, SIZED_ROW } from '../../src/retention/eval-run.js';
import { extractProbes } from '../../src/retention/probes.js';
import { referenceCompactions } from '../../src/retention/reference-compaction.js';
import { recall } from '../../src/retention/score.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { BUNDLED } from '../helpers/paths.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';

async function read(path: string): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([path], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') out.push(item.transcript);
  return out;
}

const tok = getTokenizer('o200k_base');
const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');

describe('eval on the bundled Claude Code session and tau-bench runs', () => {
  let transcripts: Transcript[];
  beforeAll(async () => {
    transcripts = [...(await read(SESSION)), ...(await read(join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json'))).slice(0, 40)];
  });

  it('finds every probe in the original transcripts (the rule matches what it extracted)', async () => {
    const e = new Evaluation({ strategies: ['mask-observations', 'checkpoint', 'strip-tool-results'], tokenizer: tok, reference: false });
    for (const t of transcripts) await e.add(t, { file: 'f', line: 1 });
    const r = e.report();
    const original = r.rows[0];
    expect(original.name).toBe(ORIGINAL_ROW);
    expect(original.score.overall.probes).toBeGreaterThan(300);
    expect(original.score.overall.retained).toBe(original.score.overall.probes);
    // Both sources contribute: the session has files and commands, tau-bench has errors without is_error flags.
    expect(r.probes.artifact).toBeGreaterThan(10);
    expect(r.probes.command).toBeGreaterThan(30);
    expect(r.probes.error).toBeGreaterThan(5);

    const row = (name: string) => r.rows.find((x) => x.name === name)!;
    for (const x of r.rows) expect(x.tokensAfter).toBeLessThanOrEqual(x.tokensBefore);
    // Masking rewrites only tool results: every path and command in the calls' arguments survives, errors may not.
    expect(recall(row('mask-observations').score.byKind.artifact)).toBe(1);
    expect(recall(row('mask-observations').score.byKind.command)).toBe(1);
    expect(row('mask-observations').tokensAfter).toBeLessThan(row('mask-observations').tokensBefore);
    // The checkpoint saves the most and keeps every last request, but not every command.
    expect(row('checkpoint').tokensAfter).toBeLessThan(row('strip-tool-results').tokensAfter);
    expect(recall(row('checkpoint').score.lastRequest)).toBe(1);
    expect(recall(row('checkpoint').score.byKind.command)).toBeLessThan(1);
  });
});

describe("reference: Claude Code's own compaction", () => {
  it('locates the summary and the span it replaced in the bundled session', async () => {
    const [session] = await read(SESSION);
    const refs = referenceCompactions(session);
    expect(refs.map((r) => ({ from: r.from, to: r.to, trigger: r.trigger, preTokens: r.preTokens }))).toEqual([
      { from: 0, to: 288, trigger: 'manual', preTokens: 142431 },
    ]);
    expect((session.messages[288] as Record<string, unknown>).is_compact_summary).toBe(true);
  });

  it.skipIf(!hasCorpus('eval on a spotter session of the shared corpus'))(
    "scores a spotter session's summary on its span beside the strategies on the same span",
    async () => {
      const [session] = await read(corpusPath('spotter', 'files', 'test', 'fixtures', 'transcripts', '258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
      const [ref] = referenceCompactions(session);
      expect(ref.trigger).toBe('auto');
      expect(ref.preTokens).toBe(167094);
      const e = new Evaluation({ strategies: ['checkpoint', 'mask-observations'], tokenizer: tok });
      await e.add(session, { file: 'f', line: 1 });
      const { reference } = e.report();
      expect(reference.spans).toBe(1);
      expect(reference.rows.map((r) => r.name)).toEqual([ORIGINAL_ROW, REFERENCE_ROW, SIZED_ROW, 'checkpoint', 'mask-observations']);
      const [original, summary, sized, checkpoint] = reference.rows;
      // Held to the summary's own tokens, the checkpoint stays within them.
      expect(sized.tokensAfter).toBeLessThanOrEqual(summary.tokensAfter);
      const spanProbes = extractProbes({ messages: session.messages.slice(ref.from, ref.to) });
      expect(original.score.overall.probes).toBe(spanProbes.length);
      expect(original.score.overall.retained).toBe(spanProbes.length);
      expect(summary.tokensAfter).toBe(totalOf(countMessage(ref.summary, tok)));
      expect(summary.tokensBefore).toBe(original.tokensBefore);
      // Claude Code's summary restates the requests and the files, but few exact commands.
      expect(recall(summary.score.byKind.intent)).toBeGreaterThan(0.5);
      expect(recall(summary.score.byKind.command)).toBeLessThan(0.5);
      // On the span, the checkpoint compacts everything too (as if the next request had arrived).
      expect(checkpoint.tokensAfter / checkpoint.tokensBefore).toBeLessThan(0.2);
    },
  );
});
