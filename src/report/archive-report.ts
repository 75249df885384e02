import type { StepReport } from '../strategies/types.js';
import { type Breakdown, addBreakdown, emptyBreakdown } from '../tokens/breakdown.js';
import type { TokenizerName } from '../tokens/tokenizer.js';

/** One strategy's figures summed over an archive (both `sanitize` steps of a pipeline add up under one name). */
export interface StrategyTotals {
  name: string;
  /** Steps that ran (over all transcripts; skipped ones not included). */
  runs: number;
  /** Steps whose condition was not met (e.g. `checkpoint` below its threshold). */
  skipped: number;
  tokensSaved: number;
  messagesChanged: number;
  messagesRemoved: number;
  /** Wall time summed; the only field that differs between two runs of the same job. */
  ms: number;
  /** The strategy's own counters, summed. */
  details: Record<string, number>;
}

/**
 * A compaction job's report summed over every transcript. The per-strategy savings add up exactly to
 * tokensBefore - tokensAfter, because each transcript's steps do (see runner.ts).
 */
export interface ArchiveReport {
  tokenizer: TokenizerName;
  transcripts: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  /** In the order strategies first appear in the pipeline. */
  strategies: StrategyTotals[];
  byCategory: { before: Breakdown; after: Breakdown };
}

/** What a transcript's run contributes (a `RunResult` fits). */
export interface RunFigures {
  steps: readonly StepReport[];
  tokensBefore: number;
  tokensAfter: number;
  before: Readonly<Breakdown>;
  after: Readonly<Breakdown>;
}

export function emptyArchiveReport(tokenizer: TokenizerName): ArchiveReport {
  return {
    tokenizer,
    transcripts: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    tokensSaved: 0,
    strategies: [],
    byCategory: { before: emptyBreakdown(), after: emptyBreakdown() },
  };
}

function totalsFor(report: ArchiveReport, name: string): StrategyTotals {
  let totals = report.strategies.find((s) => s.name === name);
  if (!totals) {
    totals = { name, runs: 0, skipped: 0, tokensSaved: 0, messagesChanged: 0, messagesRemoved: 0, ms: 0, details: {} };
    report.strategies.push(totals);
  }
  return totals;
}

/** Adds the figures a strategy's totals sum, from one step or from another report's totals. */
function addFigures(totals: StrategyTotals, from: Pick<StepReport, 'tokensSaved' | 'messagesChanged' | 'messagesRemoved' | 'ms' | 'details'>): void {
  totals.tokensSaved += from.tokensSaved;
  totals.messagesChanged += from.messagesChanged;
  totals.messagesRemoved += from.messagesRemoved;
  totals.ms += from.ms;
  for (const [key, n] of Object.entries(from.details ?? {})) totals.details[key] = (totals.details[key] ?? 0) + n;
}

/** Adds one transcript's run to the report (in place) and returns the report. */
export function addRun(report: ArchiveReport, run: RunFigures): ArchiveReport {
  report.transcripts++;
  report.tokensBefore += run.tokensBefore;
  report.tokensAfter += run.tokensAfter;
  report.tokensSaved = report.tokensBefore - report.tokensAfter;
  addBreakdown(report.byCategory.before, run.before);
  addBreakdown(report.byCategory.after, run.after);
  for (const step of run.steps) {
    const totals = totalsFor(report, step.strategy);
    if (step.skipped) totals.skipped++;
    else totals.runs++;
    addFigures(totals, step);
  }
  return report;
}

/** Sums two reports (e.g. of two shards) into a new one; `a`'s strategy order comes first. */
export function mergeArchiveReports(a: ArchiveReport, b: ArchiveReport): ArchiveReport {
  const out = emptyArchiveReport(a.tokenizer);
  for (const r of [a, b]) {
    out.transcripts += r.transcripts;
    out.tokensBefore += r.tokensBefore;
    out.tokensAfter += r.tokensAfter;
    addBreakdown(out.byCategory.before, r.byCategory.before);
    addBreakdown(out.byCategory.after, r.byCategory.after);
    for (const s of r.strategies) {
      const totals = totalsFor(out, s.name);
      totals.runs += s.runs;
      totals.skipped += s.skipped;
      addFigures(totals, s);
    }
  }
  out.tokensSaved = out.tokensBefore - out.tokensAfter;
  return out;
}

type TimelessReport = Omit<ArchiveReport, 'strategies'> & { strategies: Omit<StrategyTotals, 'ms'>[] };

/** The report without wall times: what goes into files compared for determinism. */
export function withoutTimings(report: ArchiveReport): TimelessReport {
  return { ...report, strategies: report.strategies.map(({ ms: _ms, ...rest }) => rest) };
}
