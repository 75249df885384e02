import { dirname } from 'node:path';
import { type ErrorRecord, TcompactError } from '../../errors.js';
import { LineTally } from '../../formats/line-tally.js';
import { readInputs } from '../../formats/read-inputs.js';
import { AtomicFile, fsyncDir } from '../../io/atomic-file.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { formatRefLine } from '../../refs/ref-file.js';
import { RefSink } from '../../refs/ref-store.js';
import { type ArchiveReport, addRun, emptyArchiveReport } from '../../report/archive-report.js';
import { writeCompactPage } from '../../report/html/write-pages.js';
import { renderMarkdownReport, renderStrategyTable } from '../../report/render-markdown.js';
import { type TranscriptSpread, addToSpread, emptySpread } from '../../report/transcript-spread.js';
import { percent } from '../../report/bars.js';
import type { CompactConfig } from '../../strategies/compact-config.js';
import { compactTranscript } from '../../strategies/compact-transcript.js';
import { type RunResult, requireSyncSteps, runStepsAsync } from '../../strategies/runner.js';
import { createLlmSession, type LlmRunUsage } from '../../llm/session.js';
import { finishCompaction } from '../../refs/recipe.js';
import type { InputItem } from '../../formats/types.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { LLM_FLAGS_HELP, LLM_FLAG_SPECS, llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import { nothingYielded } from '../nothing-yielded.js';
import { EXIT } from '../exit-codes.js';
import { parseFormat } from './stats.js';

/** The files `compact --out FILE.jsonl` writes next to each other. */
export interface CompactOutputPaths {
  transcripts: string;
  refs: string;
  errors: string;
  report: string;
  markdown: string;
  html: string;
}

/** `out.jsonl` -> `out.refs.jsonl`, `out.errors.jsonl`, `out.report.json`, `out.report.md`, `out.report.html`. */
export function compactOutputPaths(out: string): CompactOutputPaths {
  const base = out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out;
  return {
    transcripts: out,
    refs: `${base}.refs.jsonl`,
    errors: `${base}.errors.jsonl`,
    report: `${base}.report.json`,
    markdown: `${base}.report.md`,
    html: `${base}.report.html`,
  };
}

/** report.json of `compact`: the archive report plus line accounting and the settings that produced it. */
export interface CompactReport extends ArchiveReport {
  tool: 'tcompact compact';
  inputs: string[];
  settings: Pick<CompactConfig, 'strategies' | 'keepLast' | 'keepFirst' | 'window' | 'refs'> & { steps: string[] };
  /** lines.read = ok + failed + skipped; for whole-file JSON inputs a "line" is a record. */
  lines: { read: number; ok: number; failed: number; skipped: number };
  messages: { before: number; after: number };
  errorsByCode: Record<string, number>;
  /** Compression histogram, window tiers before and after, the largest transcripts (for the HTML page). */
  spread: TranscriptSpread;
  dryRun: boolean;
  /** With --model: the LLM usage, as in `run`'s report.json. */
  llm?: LlmRunUsage;
}

/** The compacted archive, its side store and its errors, each written under a temporary name until `commit`. */
class CompactOutput {
  private readonly written = new Set<string>();

  private constructor(
    private readonly paths: CompactOutputPaths,
    private readonly transcripts: AtomicFile,
    private readonly errors: AtomicFile,
    private readonly refs: AtomicFile | null,
  ) {}

  static async open(paths: CompactOutputPaths, keepRefs: boolean): Promise<CompactOutput> {
    const files: AtomicFile[] = [];
    try {
      for (const path of [paths.transcripts, paths.errors, ...(keepRefs ? [paths.refs] : [])]) files.push(await AtomicFile.create(path));
    } catch (err) {
      for (const f of files) await f.discard();
      throw new TcompactError('E_IO', `cannot create output files next to ${paths.transcripts}: ${(err as Error).message}`);
    }
    return new CompactOutput(paths, files[0], files[1], files[2] ?? null);
  }

  async transcript(json: string, refs: RefSink | null): Promise<void> {
    await this.transcripts.write(`${json}\n`);
    if (!this.refs || !refs) return;
    let lines = '';
    for (const [ref, data] of refs.entries) {
      if (this.written.has(ref)) continue;
      this.written.add(ref);
      lines += formatRefLine(ref, data);
    }
    if (lines !== '') await this.refs.write(lines);
  }

  async error(record: ErrorRecord): Promise<void> {
    await this.errors.write(`${JSON.stringify(record)}\n`);
  }

  async commit(report: CompactReport): Promise<void> {
    const reportFile = await AtomicFile.create(this.paths.report);
    const markdown = await AtomicFile.create(this.paths.markdown);
    try {
      await reportFile.write(`${JSON.stringify(report, null, 2)}\n`);
      await markdown.write(renderMarkdownReport(report));
      // The report goes last: its presence says the other files are complete.
      for (const f of [this.transcripts, this.errors, this.refs, markdown, reportFile]) await f?.rename();
    } catch (err) {
      await reportFile.discard();
      await markdown.discard();
      throw err;
    }
    await fsyncDir(dirname(this.paths.transcripts));
  }

  async discard(): Promise<void> {
    for (const f of [this.transcripts, this.errors, this.refs]) await f?.discard();
  }
}

export const compactCommand: Command = {
  name: 'compact',
  summary: 'compact transcripts with mechanical strategies in one process; writes the archive, side store and report',
  help: `Usage: tcompact compact <input...> --out FILE.jsonl [options]

Runs every transcript through the strategies (default: the "auto" pipeline; "sanitize" always runs first and
last) and writes, next to FILE.jsonl: FILE.refs.jsonl (the side store that \`restore\` reads), FILE.errors.jsonl
(input lines that failed), FILE.report.json, FILE.report.md and FILE.report.html (a self-contained page with charts). Every file is written under a temporary name
and renamed into place when complete. Prints tokens saved per strategy.

Options:
  --out FILE.jsonl       the compacted archive (required unless --dry-run)
  --strategy NAME        a strategy or preset; repeat to compose left to right (replaces the config's list)
  --keep-last N          last whole turns never modified (default 0)
  --keep-messages N      last messages never modified (default 10)
  --keep-results N       last tool results never modified, with their calls (default 10)
  --window N             context window in tokens (default ${DEFAULT_WINDOW})
  --tokenizer NAME       o200k_base (default), cl100k_base, or heuristic
  --tokenizer-engine E   ai-tokenizer (default) or gpt-tokenizer: the library counting o200k/cl100k (same counts)
  --config FILE          JSON config: strategies, keepLast, keepFirst, window, tokenizer, refs, toolHints,
                         options (per strategy); flags override it
  --no-refs              do not keep replaced content (no FILE.refs.jsonl; restore is not possible)
  --dry-run              compact and print the report, write nothing
  --from FORMAT          force the input format instead of detecting it
  --max-line-bytes N     reject longer lines with E_LINE_TOO_LONG (default ${DEFAULT_MAX_LINE_BYTES})

${LLM_FLAGS_HELP}
  (up to --llm-concurrency transcripts are summarized at once; the output keeps the input order)

Exit codes: 0 ok, 1 some input failed (see FILE.errors.jsonl), 2 usage or config error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('compact', argv, {
      out: { type: 'string' },
      strategy: { type: 'string', multiple: true },
      'keep-last': { type: 'string' },
      'keep-messages': { type: 'string' },
      'keep-results': { type: 'string' },
      window: { type: 'string' },
      tokenizer: { type: 'string' },
      'tokenizer-engine': { type: 'string' },
      config: { type: 'string' },
      'no-refs': { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      from: { type: 'string' },
      'max-line-bytes': { type: 'string' },
      ...LLM_FLAG_SPECS,
    });
    const inputs = requireInputs('compact', positionals);
    const dryRun = values['dry-run'] === true;
    if (values.out === undefined && !dryRun) throw new TcompactError('E_USAGE', 'compact: --out FILE.jsonl is required (or --dry-run)');
    const [llmOptions] = llmOptionsFromFlags('compact', values);
    const { config, steps } = await loadCompactConfig(
      values.config,
      { ...compactFlagOverrides(values), options: llmStepOptionsFromFlags(values) },
      { model: llmOptions !== undefined },
    );
    if (!llmOptions) requireSyncSteps(steps, 'compact');
    const llm = llmOptions ? await createLlmSession(llmOptions) : undefined;
    // Transcripts in flight at once: the model's concurrency with LLM steps, else one (all synchronous).
    const window = llm ? llm.options.llmConcurrency : 1;
    const maxLineBytes = intOption('max-line-bytes', values['max-line-bytes'], DEFAULT_MAX_LINE_BYTES, 1);
    const from = parseFormat(values.from);
    const tokenizer = getTokenizer(config.tokenizer, config.tokenizerEngine);

    const archive = emptyArchiveReport(tokenizer.name);
    const tally = new LineTally();
    const messages = { before: 0, after: 0 };
    const spread = emptySpread(config.window);
    const output = dryRun ? null : await CompactOutput.open(compactOutputPaths(values.out!), config.refs);
    const fail = async (record: ErrorRecord, count: number) => {
      tally.failed(record, count);
      io.stderr.write(`${record.file}:${record.line}: ${record.code}: ${record.message}\n`);
      await output?.error(record);
    };
    // Each item becomes a write, done in input order; with LLM steps several transcripts are compacted meanwhile.
    const writes: Promise<() => Promise<void>>[] = [];
    const compactItem = async (item: Extract<InputItem, { kind: 'transcript' }>): Promise<() => Promise<void>> => {
      const refs = config.refs ? new RefSink() : null;
      const ctx = { tokenizer, refs, window: config.window };
      let run: RunResult;
      try {
        if (llm) {
          const folded = await runStepsAsync(item.transcript, steps, { ...ctx, llm });
          run = { ...folded, ...finishCompaction(item.transcript, folded.transcript, refs) };
        } else run = compactTranscript(item.transcript, steps, ctx);
      } catch (err) {
        const message = `transcript ${item.transcript.id}: ${(err as Error).message}`;
        return () => fail({ file: item.file, line: item.line, byteOffset: item.byteOffset, code: 'E_STRATEGY', message }, item.lines);
      }
      return async () => {
        tally.ok(item.lines);
        messages.before += item.transcript.messages.length;
        messages.after += run.transcript.messages.length;
        addRun(archive, run);
        addToSpread(spread, { id: item.transcript.id, file: item.file, line: item.line, tokensBefore: run.tokensBefore, tokensAfter: run.tokensAfter });
        await output?.transcript(JSON.stringify(run.transcript), refs);
      };
    };
    try {
      for await (const item of readInputs(inputs, { maxLineBytes, from })) {
        if (item.kind === 'error') writes.push(Promise.resolve(() => fail(item.record, item.lines ?? 1)));
        else if (item.kind === 'skipped') writes.push(Promise.resolve(async () => tally.skipped(item.reason)));
        else writes.push(compactItem(item));
        while (writes.length > window) await (await (writes.shift() as Promise<() => Promise<void>>))();
      }
      for (const write of writes.splice(0)) await (await write)();
      await llm?.close();
      const report: CompactReport = {
        tool: 'tcompact compact',
        inputs: [...inputs],
        settings: {
          strategies: config.strategies,
          keepLast: config.keepLast,
          keepFirst: config.keepFirst,
          window: config.window,
          refs: config.refs,
          steps: steps.map((s) => s.strategy.name),
        },
        lines: tally.lines,
        messages,
        errorsByCode: tally.errorsByCode,
        ...(llm ? { llm: llm.usage() } : {}),
        spread,
        dryRun,
        ...archive,
      };
      await output?.commit(report);
      if (output) await writeCompactPage(compactOutputPaths(values.out!).html, compactOutputPaths(values.out!).errors, report);
    } catch (err) {
      await llm?.close();
      await output?.discard();
      throw err;
    }

    for (const line of renderStrategyTable(archive)) io.stdout.write(`${line}\n`);
    io.stdout.write(
      `\n${archive.transcripts} transcripts: ${archive.tokensBefore} -> ${archive.tokensAfter} tokens (${tokenizer.name}), ` +
        `${archive.tokensSaved} saved (${percent(archive.tokensSaved, archive.tokensBefore)}); ` +
        `lines: ${tally.lines.read} read, ${tally.lines.ok} ok, ${tally.lines.failed} failed, ${tally.lines.skipped} skipped\n`,
    );
    io.stdout.write(dryRun ? 'dry run: nothing written\n' : `wrote ${values.out}\n`);
    const empty = nothingYielded(io, 'compact', inputs, { transcripts: tally.transcripts, failed: tally.lines.failed, skippedByReason: tally.skippedByReason });
    return empty ?? (tally.lines.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
  },
};
