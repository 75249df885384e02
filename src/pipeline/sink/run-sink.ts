import { dirname } from 'node:path';
import type { LlmRunUsage } from '../../llm/session.js';
import type { CompactConfig } from '../../strategies/compact-config.js';
import { type FinalPaths, type MergedListener, OrderedWriter, type WriterOptions } from '../store/ordered-writer.js';
import { heldShard } from '../store/shard-store.js';
import type { ShardDescriptor, ShardOutput } from '../shard/types.js';
import { renderRunReport } from './report-markdown.js';
import { writeRunPage } from './run-page.js';
import { type DistributedReport, type RunReport, RunReportBuilder } from './run-report.js';
import { SecretMasker } from '../../secrets/mask.js';

/** The final files of a run or a compact, report.html included. */
export interface SinkPaths extends FinalPaths {
  reportHtml: string;
}

/**
 * The settings report.json records and the page shows: the ones that decide the output, from the job's config and its
 * steps (presets expanded), the shard size and the model; never the worker count, which does not change the output.
 */
export function reportSettings(config: CompactConfig, steps: readonly string[], ran: { shardBytes: number; model?: string }): RunReport['settings'] {
  return {
    strategies: config.strategies,
    steps: [...steps],
    keepLast: config.keepLast,
    keepMessages: config.keepMessages,
    keepResults: config.keepResults,
    window: config.window,
    refs: config.refs,
    shardBytes: ran.shardBytes,
    ...(ran.model ? { model: ran.model } : {}),
  };
}

interface SinkOptions {
  /** Where committed shards and the merged files are. */
  outDir: string;
  /** The run's journal, and where a resume picks the merged files up. */
  writer?: WriterOptions;
  paths: SinkPaths;
  config: CompactConfig;
  /** `run` or `compact`: the report's tool and page title. */
  tool: 'run' | 'compact';
  settings: RunReport['settings'];
  /** Leave secrets as they are in the reports (`--show-secrets`); else each is masked as `[secret: KIND]`. */
  showSecrets: boolean;
  onMerged?: MergedListener;
}

/**
 * Where a run's output goes, in one place for the CLI and the library: committed shards merged in order into the final
 * files, their reports folded into report.json, report.md and report.html, each written from the same report and the
 * same settings. The final files appear only when `finish` succeeds.
 */
export class RunSink {
  private constructor(
    private readonly writer: OrderedWriter,
    private readonly builder: RunReportBuilder,
    private readonly options: SinkOptions,
  ) {}

  static async open(options: SinkOptions): Promise<RunSink> {
    const { config } = options;
    const builder = new RunReportBuilder(config.tokenizer, config.window, config.tokenizerEngine);
    const writer = await OrderedWriter.open(
      options.outDir,
      config.refs,
      (index, report, shard) => {
        builder.add(report);
        options.onMerged?.(index, report, shard);
      },
      options.paths,
      options.writer,
    );
    return new RunSink(writer, builder, options);
  }

  /** Shard `index` is committed to its own file (reused by a resume): merge it and every shard now next in line. */
  commit(index: number): Promise<void> {
    return this.writer.commit(index);
  }

  /** A settled shard: committed and merged in its turn (`stored`: committed to its own file already). */
  settle(shard: ShardDescriptor, output: ShardOutput, failed: boolean, stored: boolean): Promise<void> {
    return stored ? this.writer.commit(shard.index, heldShard(shard, output), failed) : this.writer.settle(shard, output, failed);
  }

  /** Waits for the merges; every shard below `total` must have been committed. */
  drained(total: number): Promise<void> {
    return this.writer.drained(total);
  }

  /** Builds the report, writes it as JSON, Markdown and HTML, and moves every final file into place. */
  async finish(
    meta: Pick<RunReport, 'inputs' | 'workers' | 'execution'> & { wallMs: number; bytes: number },
    extras: { llm?: LlmRunUsage; distributed?: DistributedReport },
  ): Promise<RunReport> {
    const report = this.builder.build({ ...meta, tool: this.options.tool === 'run' ? 'tcompact' : 'tcompact compact', settings: this.options.settings });
    if (extras.llm) report.llm = extras.llm;
    if (extras.distributed) report.distributed = extras.distributed;
    const masker = new SecretMasker(this.options.showSecrets);
    const shown = masker.value(report);
    if (masker.total > 0) shown.secretsMasked = masker.counts;
    const archive = new SecretMasker(this.options.showSecrets).value(this.builder.archiveReport());
    await this.writer.finish(`${JSON.stringify(shown, null, 2)}\n`, renderRunReport(shown, archive));
    const { paths } = this.options;
    // A run's table of transcripts says how to make their pages (`tcompact view`), which then link them.
    const links = this.options.tool === 'run' ? { runDir: dirname(paths.reportHtml), pages: new Map<string, string>() } : undefined;
    await writeRunPage({ html: paths.reportHtml, errors: paths.errors }, this.options.tool, shown, { ...shown.settings, workers: shown.workers }, links);
    return shown;
  }

  /** Stops without final files: what is committed stays in DIR for a resume. */
  close(): Promise<void> {
    return this.writer.close();
  }
}
