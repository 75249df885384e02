import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { type Prepared, runPipeline } from '../../pipeline/run-pipeline.js';
import type { RunReport } from '../../pipeline/sink/run-report.js';
import type { SinkPaths } from '../../pipeline/sink/run-sink.js';
import { percent } from '../../report/bars.js';
import { renderStrategyTable } from '../../report/render-markdown.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import { nothingYielded } from '../nothing-yielded.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/compact.js';

/** `out.jsonl` -> `out.refs.jsonl`, `out.errors.jsonl`, `out.report.json`, `out.report.md`, `out.report.html`. */
function compactOutputPaths(out: string): SinkPaths {
  const base = out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out;
  return {
    transcripts: out,
    refs: `${base}.refs.jsonl`,
    errors: `${base}.errors.jsonl`,
    reportJson: `${base}.report.json`,
    reportMd: `${base}.report.md`,
    reportHtml: `${base}.report.html`,
  };
}

/** What 'tcompact compact' does with its parsed flags; loaded only when the command runs. */
export async function compactAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const inputs = positionals;
  const dryRun = values['dry-run'];
  if (values.out === undefined && !dryRun) throw new TcompactError('E_USAGE', 'compact: --out FILE.jsonl is required (or --dry-run)');
  const [llm] = llmOptionsFromFlags('compact', values);
  const { config, steps } = await loadCompactConfig(
    values.config,
    { ...compactFlagOverrides(values), options: llmStepOptionsFromFlags(values) },
    { model: llm !== undefined },
  );
  const maxLineBytes = values['max-line-bytes'];
  const from = values.from;

  // The run's engine in this thread: its journal and shards live in a work folder beside the output (in the system's
  // temporary folder for a dry run), removed when done; the final files are FILE.jsonl and its siblings.
  const out = values.out;
  const workDir = dryRun || out === undefined ? await mkdtemp(join(tmpdir(), 'tcompact-compact-')) : `${out}.work`;
  const paths = compactOutputPaths(dryRun || out === undefined ? join(workDir, 'dry-run.jsonl') : out);
  const prepared: Prepared = { steps, output: { paths, tool: 'compact' } };
  let report: RunReport;
  try {
    const outcome = await runPipeline(
      {
        inputs,
        outDir: workDir,
        config,
        workers: 1,
        inProcess: true,
        showSecrets: values['show-secrets'],
        maxLineBytes,
        ...(from ? { from } : {}),
        ...(llm ? { llm } : {}),
      },
      prepared,
    );
    if (outcome.status !== 'done') throw new TcompactError('E_INTERNAL', 'compact: the run stopped before its end');
    report = outcome.report;
    for (const line of await errorLines(paths.errors)) io.stderr.write(`${line}\n`);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }

  const archive = {
    tokenizer: report.tokens.tokenizer,
    transcripts: report.transcripts,
    tokensBefore: report.tokens.before,
    tokensAfter: report.tokens.after,
    tokensSaved: report.tokens.saved,
    strategies: report.strategies,
    byCategory: report.byCategory,
  };
  for (const line of renderStrategyTable(archive)) io.stdout.write(`${line}\n`);
  const { lines } = report;
  io.stdout.write(
    `\n${report.transcripts} transcripts: ${report.tokens.before} -> ${report.tokens.after} tokens (${report.tokens.tokenizer}), ` +
      `${report.tokens.saved} saved (${percent(report.tokens.saved, report.tokens.before)}); ` +
      `lines: ${lines.read} read, ${lines.ok} ok, ${lines.failed} failed, ${lines.skipped} skipped\n`,
  );
  io.stdout.write(dryRun ? 'dry run: nothing written\n' : `wrote ${out}\n`);
  const empty = nothingYielded(io, 'compact', inputs, { transcripts: report.transcripts, failed: lines.failed, skippedByReason: report.skippedByReason });
  return empty ?? (lines.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
}

/** errors.jsonl as `file:line: CODE: message`, one line per failed input line, for the terminal. */
async function errorLines(errorsFile: string): Promise<string[]> {
  const text = await readFile(errorsFile, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const r = JSON.parse(l) as { file: string; line: number; code: string; message: string };
      return `${r.file}:${r.line}: ${r.code}: ${r.message}`;
    });
}
