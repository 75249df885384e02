import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { Evaluation, ORIGINAL_ROW, REFERENCE_ROW, SIZED_ROW } from '../../src/retention/eval-run.js';
import { rowFigures } from '../../src/retention/render-eval.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';

describe('checkpoint held to the size of the source summary, on every span spotter compacted', { timeout: 300_000 }, () => {
  it.skipIf(!hasCorpus('the checkpoint at the summary size on spotter'))(
    'stays within the summary tokens and keeps at least its facts needed again (all and paths) and more probe kinds; at its default budget 7x and 90% of probe kinds',
    async () => {
      const e = new Evaluation({ strategies: ['checkpoint'], tokenizer: getTokenizer('o200k_base') });
      for await (const item of readInputs([corpusPath('spotter', 'files')], { maxLineBytes: 1 << 26 })) {
        if (item.kind === 'transcript') await e.add(item.transcript, { file: 'f', line: 1 });
      }
      const { reference } = e.report();
      expect(reference.perSpan).toHaveLength(5);
      for (const span of reference.perSpan) {
        const row = (name: string) => span.rows.find((r) => r.name === name)!;
        const [original, summary, sized, checkpoint] = [row(ORIGINAL_ROW), row(REFERENCE_ROW), row(SIZED_ROW), row('checkpoint')];
        expect(sized.tokensAfter).toBeLessThanOrEqual(summary.tokensAfter);
        expect(sized.hindsight!.overall.retained).toBeGreaterThanOrEqual(summary.hindsight!.overall.retained);
        expect(sized.hindsight!.byReason.path.retained).toBeGreaterThanOrEqual(summary.hindsight!.byReason.path.retained);
        expect(rowFigures(sized, original).kindsMean!).toBeGreaterThan(rowFigures(summary, original).kindsMean!);
        // At its default budget, span by span: at least 7x, with probe kinds kept at 90% or more.
        const figures = rowFigures(checkpoint, original);
        expect(figures.compression!, span.transcript).toBeGreaterThanOrEqual(7);
        expect(figures.kindsMean!, span.transcript).toBeGreaterThanOrEqual(0.9);
      }
      // And over all the spans together.
      const [original, , , checkpoint] = reference.rows;
      const figures = rowFigures(checkpoint, original);
      expect(figures.compression!).toBeGreaterThanOrEqual(7);
      expect(figures.kindsMean!).toBeGreaterThanOrEqual(0.9);
    },
  );
});
