import type { LlmRunUsage } from '../../llm/session.js';
import { type ArchiveReport, type StrategyTotals, addRun, emptyArchiveReport } from '../../report/archive-report.js';
import { projectGroups } from '../../report/groups.js';
import { type TranscriptSpread, addToSpread, emptySpread } from '../../report/transcript-spread.js';
import type { Breakdown } from '../../tokens/breakdown.js';
import { DEFAULT_TOKENIZER_ENGINE, type TokenizerEngine } from '../../tokens/bpe-engines.js';
import type { TokenizerName } from '../../tokens/tokenizer.js';
import type { ShardReport } from '../shard/types.js';
import { bump, emptyCounts } from '../shard/shard-builder.js';

/**
 * report.json. Everything is a deterministic function of the input and the settings except `workers`, `execution`,
 * `timing` and each strategy's `ms`: drop those four and two runs compare byte for byte.
 */
export interface RunReport {
  tool: string;
  /** Secrets masked as `[secret: KIND]` in this report, by kind; absent when none was (or with `--show-secrets`). */
  secretsMasked?: Record<string, number>;
  inputs: string[];
  /** What produced the output: the strategies as given, the steps they expand to, the tail and window, refs on or off. */
  settings: {
    strategies: string[];
    steps: string[];
    keepLast: number;
    keepMessages: number;
    keepResults: number;
    window: number;
    refs: boolean;
    shardBytes: number;
    model?: string;
  };
  strategies: StrategyTotals[];
  lines: { read: number; ok: number; failed: number; skipped: number };
  transcripts: number;
  messages: { before: number; after: number };
  tokens: {
    before: number;
    after: number;
    saved: number;
    savedShare: number;
    tokenizer: TokenizerName;
    /** The library that counted the BPE encoding (null for `heuristic`). */
    engine: TokenizerEngine | null;
  };
  byCategory: { before: Breakdown; after: Breakdown };
  /** Compression histogram, window tiers before and after, the largest transcripts (for report.html). */
  spread: TranscriptSpread;
  errorsByCode: Record<string, number>;
  skippedByReason: Record<string, number>;
  formats: Record<string, number>;
  /** Inputs of two projects or more (transcriptProject): each project's transcripts and tokens. */
  byProject?: Record<string, ProjectFigures>;
  repairs: Record<string, number>;
  warnings: number;
  /** Transcript ids seen more than once (a later copy does not replace an earlier one: both are compacted). */
  duplicateIds: { count: number; examples: string[] };
  workers: number;
  execution: { shards: number; reusedShards: number; retriedShards: number; failedShards: number };
  timing: { wallMs: number; bytes: number; mbPerSec: number };
  /** LLM usage (requests, tokens, cost, failures, limits) when a model was configured; its `timing` varies. */
  llm?: LlmRunUsage;
  /** Who did the work of a run that went through a queue (`--queue`); varies from run to run. */
  distributed?: DistributedReport;
}

/** One project's part of a run. */
export interface ProjectFigures {
  transcripts: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  savedShare: number;
}

const MAX_EXAMPLES = 10;

/** Folds shard reports, in shard order, into the run's totals (per-strategy sums through the archive report). */
export class RunReportBuilder {
  private readonly counts = emptyCounts();
  private archive: ArchiveReport | undefined;
  private readonly ids = new Set<string>();
  private readonly duplicates: string[] = [];
  private duplicateCount = 0;
  private messagesBefore = 0;
  private messagesAfter = 0;
  private readonly spread: TranscriptSpread;
  private readonly projects = projectGroups(() => ({ transcripts: 0, tokensBefore: 0, tokensAfter: 0 }));

  constructor(
    private readonly tokenizer: TokenizerName,
    window: number,
    private readonly engine: TokenizerEngine = DEFAULT_TOKENIZER_ENGINE,
  ) {
    this.spread = emptySpread(window);
  }

  add(report: ShardReport): void {
    const c = report.counts;
    for (const k of ['read', 'ok', 'failed', 'skipped'] as const) this.counts.lines[k] += c.lines[k];
    this.counts.bytes += c.bytes;
    this.counts.warnings += c.warnings;
    for (const key of ['errorsByCode', 'skippedByReason', 'formats', 'repairs'] as const) {
      for (const [k, n] of Object.entries(c[key])) bump(this.counts[key], k, n);
    }
    this.archive ??= emptyArchiveReport(this.tokenizer);
    for (const t of report.transcripts) {
      if (this.ids.has(t.id)) {
        this.duplicateCount++;
        if (this.duplicates.length < MAX_EXAMPLES && !this.duplicates.includes(t.id)) this.duplicates.push(t.id);
      } else this.ids.add(t.id);
      this.messagesBefore += t.messagesBefore;
      this.messagesAfter += t.messagesAfter;
      addRun(this.archive, t);
      addToSpread(this.spread, t);
      const project = this.projects.of(t.project);
      project.transcripts++;
      project.tokensBefore += t.tokensBefore;
      project.tokensAfter += t.tokensAfter;
    }
  }

  build(meta: Pick<RunReport, 'tool' | 'inputs' | 'settings' | 'workers' | 'execution'> & { wallMs: number; bytes: number }): RunReport {
    const archive = this.archive ?? emptyArchiveReport(this.tokenizer);
    const seconds = meta.wallMs / 1000;
    const byProject = this.projects.result();
    return {
      tool: meta.tool,
      inputs: meta.inputs,
      settings: meta.settings,
      strategies: archive.strategies.map((s) => ({ ...s, ms: Math.round(s.ms) })),
      lines: { ...this.counts.lines },
      transcripts: archive.transcripts,
      messages: { before: this.messagesBefore, after: this.messagesAfter },
      tokens: {
        before: archive.tokensBefore,
        after: archive.tokensAfter,
        saved: archive.tokensSaved,
        savedShare: archive.tokensBefore > 0 ? Number((archive.tokensSaved / archive.tokensBefore).toFixed(4)) : 0,
        tokenizer: this.tokenizer,
        engine: this.tokenizer === 'heuristic' ? null : this.engine,
      },
      byCategory: archive.byCategory,
      spread: this.spread,
      errorsByCode: sortKeys(this.counts.errorsByCode),
      skippedByReason: sortKeys(this.counts.skippedByReason),
      formats: sortKeys(this.counts.formats),
      ...(byProject ? { byProject: projectFigures(byProject) } : {}),
      repairs: sortKeys(this.counts.repairs),
      warnings: this.counts.warnings,
      duplicateIds: { count: this.duplicateCount, examples: this.duplicates },
      workers: meta.workers,
      execution: meta.execution,
      timing: {
        wallMs: Math.round(meta.wallMs),
        bytes: meta.bytes,
        mbPerSec: seconds > 0 ? Number((meta.bytes / 1e6 / seconds).toFixed(2)) : 0,
      },
    };
  }

  /** The same totals as an archive report (for the shared Markdown renderer). */
  archiveReport(): ArchiveReport {
    return this.archive ?? emptyArchiveReport(this.tokenizer);
  }
}

function projectFigures(sums: Record<string, { transcripts: number; tokensBefore: number; tokensAfter: number }>): Record<string, ProjectFigures> {
  return Object.fromEntries(
    Object.entries(sums).map(([project, p]) => {
      const saved = p.tokensBefore - p.tokensAfter;
      return [project, { ...p, tokensSaved: saved, savedShare: p.tokensBefore > 0 ? Number((saved / p.tokensBefore).toFixed(4)) : 0 }];
    }),
  );
}

function sortKeys(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** report.json's `distributed` object: who did the work of a run that went through a queue. */
export interface DistributedReport {
  /** The run's queue name. */
  queue: string;
  /** The Redis URL, password replaced by `***`. */
  url: string;
  /** Worker processes (`host:pid`) that completed at least one shard of this run. */
  workersSeen: number;
  shardsPerWorker: Record<string, number>;
  /** Shards BullMQ's stalled-job check took back from a worker that stopped renewing its lock (killed, frozen). */
  stalledRecovered: number;
  /** Shards that needed more than one attempt (a worker crash on the shard). */
  retried: number;
}
