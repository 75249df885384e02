import { join } from 'node:path';
import { TcompactError, writeError } from '../errors.js';
import type { InputItem } from '../formats/types.js';
import { AtomicFile, writeFileAtomic } from '../io/atomic-file.js';
import { SecretMasker } from '../secrets/mask.js';
import { makeDir } from '../io/make-dir.js';
import { gatherAndSettle } from '../llm/batch-phase.js';
import type { Batcher } from '../llm/batcher.js';
import type { LlmSession } from '../llm/session.js';
import type { Transcript } from '../model/transcript.js';
import { writeEvalPage } from './eval-page.js';
import type { Evaluation } from './eval-run.js';
import type { Judge } from './judge.js';
import { renderEvaluation, rowFigures } from './render-eval.js';

interface EvalJob {
  /** The inputs as given, for eval.json. */
  inputs: readonly string[];
  /** eval.json's settings: what produced the scores. */
  settings: Record<string, unknown>;
  out: string;
  /** A fresh pass over the inputs (each pass reads them again). */
  readItems: () => AsyncIterable<InputItem>;
  /** An evaluation with this judge (the gathering passes have their own). */
  evaluationOf: (judge: Judge | undefined) => Evaluation;
  judge?: Judge;
  /** The judge that gathers the batch of its questions, in batch mode (it shares `judge`'s session). */
  gatherJudge?: Judge;
  llm: readonly LlmSession[];
  batch: boolean;
  /** The CLI's input accounting: true for a transcript to score (errors are reported and counted by it). */
  accept: (item: InputItem) => item is Extract<InputItem, { kind: 'transcript' }>;
  tally: () => { errors: number; skipped: number };
  /** Progress lines (batches sent). */
  note: (line: string) => void;
  /** Masks the secrets of lost.jsonl, eval.json, eval.md and eval.html (the identity with --show-secrets). */
  masker: SecretMasker;
}

/**
 * `eval` as a job: in batch mode the gather-and-settle phases first, then the pass that scores every transcript and
 * writes lost.jsonl as it goes, then eval.json, eval.md and eval.html from the same report. Returns the Markdown.
 */
export async function runEvalJob(job: EvalJob): Promise<string> {
  if (job.batch) await gatherEvalBatches(job);
  const evaluation = job.evaluationOf(job.judge);
  let lost: AtomicFile;
  try {
    await makeDir(job.out);
    lost = await AtomicFile.create(join(job.out, 'lost.jsonl'));
  } catch (err) {
    throw writeError(err, job.out);
  }
  try {
    for await (const item of job.readItems()) {
      if (!job.accept(item)) continue;
      let lines = '';
      for (const l of await evaluation.add(item.transcript, item, compactedOf(item))) lines += `${JSON.stringify(job.masker.value(l))}\n`;
      if (lines !== '') await lost.write(lines);
    }
    await lost.rename();
  } catch (err) {
    await lost.discard();
    throw err;
  } finally {
    for (const session of job.llm) await session.close();
    await job.judge?.session.close();
  }
  const report = evaluation.report();
  const original = report.rows[0];
  const { errors, skipped } = job.tally();
  const unmasked = {
    tool: 'tcompact eval',
    inputs: [...job.inputs],
    settings: job.settings,
    ...report,
    rows: report.rows.map((r) => ({ ...r, ...rowFigures(r, original) })),
    reference: { ...report.reference, rows: report.reference.rows.map((r) => ({ ...r, ...rowFigures(r, report.reference.rows[0]) })) },
    errors,
    skipped,
  };
  // The Markdown masks on a masker of its own: the counts are those of what eval.json shows.
  const markdown = renderEvaluation(new SecretMasker(job.masker.show).value(report));
  const json = { ...job.masker.value(unmasked), secretsMasked: job.masker.counts };
  try {
    await writeFileAtomic(join(job.out, 'eval.json'), [`${JSON.stringify(json, null, 2)}\n`]);
    await writeFileAtomic(join(job.out, 'eval.md'), [markdown]);
  } catch (err) {
    throw writeError(err, job.out);
  }
  await writeEvalPage(job.out, json);
  return markdown;
}

/** The compacted form an `eval --compacted` item carries beside its restored original. */
function compactedOf(item: Extract<InputItem, { kind: 'transcript' }>): Transcript | undefined {
  return (item as { compacted?: Transcript }).compacted;
}

/**
 * The Batch API phases of `eval --batch`, before the pass that counts: one over the inputs gathers the requests of the
 * LLM steps into batches and waits for them; then one gathers the judge's questions about the contexts those answers
 * compacted (asking them earlier would pay for contexts of the fallback). Ctrl-C while waiting stops eval; the batches
 * keep running, and the same command picks them up (they are journaled in DIR/llm-batches/).
 */
async function gatherEvalBatches(job: EvalJob): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  const models = job.llm.flatMap((s) => (s.batcher ? [s.batcher] : []));
  const pass = async (batchers: readonly Batcher[], withJudge: Judge | undefined): Promise<void> => {
    const judgeBatcher = withJudge?.session.batcher;
    const settled = await gatherAndSettle({
      batchers,
      gathering: judgeBatcher ? [...models, judgeBatcher] : models,
      pass: async () => {
        const evaluation = job.evaluationOf(withJudge);
        for await (const item of job.readItems()) if (item.kind === 'transcript') await evaluation.add(item.transcript, item, compactedOf(item));
        return true;
      },
      stop: stop.signal,
      onSubmitted: (sent) => job.note(`eval: ${sent} requests sent as batches; waiting for them`),
    });
    if (!settled)
      throw new TcompactError('E_LLM', 'eval: interrupted while waiting for batches; they keep running, run the same command again to pick them up');
  };
  try {
    if (models.length > 0) await pass(models, undefined);
    const judgeBatcher = job.gatherJudge?.session.batcher;
    if (judgeBatcher) await pass([judgeBatcher], job.gatherJudge);
  } finally {
    process.off('SIGINT', onSignal);
  }
}
