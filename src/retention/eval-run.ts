import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { RefSink } from '../refs/ref-store.js';
import type { LlmSession } from '../llm/session.js';
import { type Job, createJob } from '../pipeline/job/job.js';
import { type CompactConfig, parseCompactConfig } from '../strategies/compact-config.js';
import { requireSyncSteps } from '../strategies/runner.js';
import type { StepReport } from '../strategies/types.js';
import { countMessage, countTranscript, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { Judge, JudgeReport } from './judge.js';
import { type ModelView, modelView, viewOfMessages } from './model-view.js';
import { PROBE_KINDS, type Probe, type ProbeKind, extractProbes } from './probes.js';
import { type OpaqueCompaction, opaqueCompactions, referenceCompactions } from './reference-compaction.js';
import { type HindsightScore, addHindsightScore, emptyHindsightScore, hindsightProbes, scoreHindsight } from './hindsight.js';
import { type ProbeScore, addScore, emptyScore, scoreProbes } from './score.js';
import { formatGroups, projectGroups } from '../report/groups.js';
import { transcriptProject } from '../model/project.js';
import { isSourceSummary } from '../model/recorded.js';

/** The format a reader recorded in the transcript's metadata (`source.format`), when the caller did not say. */
function sourceFormatOf(transcript: Transcript): string | undefined {
  const source = transcript.metadata?.source;
  const format = typeof source === 'object' && source !== null ? (source as { format?: unknown }).format : undefined;
  return typeof format === 'string' ? format : undefined;
}

/** The row of the uncompacted transcript: the rule's own ceiling (a probe it cannot find even there is a rule limit). */
export const ORIGINAL_ROW = 'original';
/** The row of a source's own compaction summaries, in the reference comparison: `claude-code summary`, `codex summary`. */
export const summaryRow = (format: string): string => `${format} summary`;
/** The row of Claude Code's summaries. */
export const REFERENCE_ROW = summaryRow('claude-code');
/** The summary row's name while the sources of the spans are not known, and when they are several. */
const SOURCES_ROW = 'source summaries';
/** The row of `checkpoint` held to the token count of the source's summary on each span, in the reference comparison. */
export const SIZED_ROW = "checkpoint at the summary's size";

export interface EvalOptions {
  /** Each entry is one strategy or preset, or several joined with `+` (one pipeline). */
  strategies: readonly string[];
  tokenizer: Tokenizer;
  /** Config fields shared by every strategy (window, keepLast, keepFirst, per-strategy options, tool hints). */
  config?: Partial<Omit<CompactConfig, 'strategies' | 'tokenizer'>>;
  /** Score the source's own compactions against the strategies on the same spans. @default true */
  reference?: boolean;
  /** Also ask an LLM judge about the original and each compacted transcript (never needed for the scores). */
  judge?: Judge;
  /** Judge only the first N transcripts. @default all */
  judgeLimit?: number;
  /**
   * The models of the LLM steps (`summarize`, `classify-tangents`, `auto` whose summarizer becomes `summarize`): a
   * strategy with an LLM step gives one row per model (`name @ model` when there are several).
   */
  llm?: readonly LlmSession[];
  /**
   * The name of a row of transcripts compacted elsewhere (`eval --compacted DIR`, the output of a `run`): `add` is then
   * given each one beside its original and scores it like a strategy's output. @default no such row
   */
  given?: string;
}

/** What a row's LLM steps cost: requests, tokens, dollars (null when a price is unknown) and wall time. */
interface RowLlm {
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number | null;
  /** Summed wall time of the LLM steps (the latency a user waits per transcript, summed): varies run to run. */
  ms: number;
}

/** One row of a table: a strategy (or the original, or the reference summary) summed over transcripts or spans. */
export interface EvalRow {
  name: string;
  tokensBefore: number;
  tokensAfter: number;
  score: ProbeScore;
  /**
   * Rows of the comparison with the source's own compactions: the facts of each span that the session used again
   * after the compaction (see hindsight.ts), retained by the row's context.
   */
  hindsight?: HindsightScore;
  /** Rows of strategies with LLM steps. */
  llm?: RowLlm;
}

interface TranscriptEval {
  id: string;
  file: string;
  line: number;
  tokensBefore: number;
  probes: Record<ProbeKind, number>;
  rows: { name: string; tokensAfter: number; score: ProbeScore }[];
}

interface ReferenceEval {
  transcript: string;
  /** The source format of the transcript, whose summary the span's summary row holds. */
  format?: string;
  compaction: number;
  trigger?: string;
  preTokens?: number;
  /** The replaced span, messages [from, to) of the transcript. */
  from: number;
  to: number;
  rows: EvalRow[];
}

/** A probe a strategy lost, for lost.jsonl. */
export interface LostProbe {
  transcript: string;
  strategy: string;
  /** Set for probes lost on a reference span. */
  compaction?: number;
  probe: Probe;
}

export interface EvalReport {
  tokenizer: string;
  strategies: string[];
  transcripts: number;
  probes: Record<ProbeKind, number>;
  rows: EvalRow[];
  perTranscript: TranscriptEval[];
  reference: {
    spans: number;
    rows: EvalRow[];
    perSpan: ReferenceEval[];
    /** The source's compactions whose summary is encrypted (Codex): named, not scored. Absent when there is none. */
    opaque?: (OpaqueCompaction & { transcript: string })[];
  };
  judge?: JudgeReport;
  /** Inputs of several source formats: each row's tokens and probe recall per format, the agents side by side. */
  byFormat?: Record<string, EvalGroup>;
  /** Inputs of two projects or more (transcriptProject): the same per project. */
  byProject?: Record<string, EvalGroup>;
}

/** A group of the transcripts (a source format, a project): its rows' tokens and probe recall. */
export interface EvalGroup {
  transcripts: number;
  rows: { name: string; tokensBefore: number; tokensAfter: number; score: ProbeScore }[];
}

function probeCounts(probes: readonly Probe[]): Record<ProbeKind, number> {
  const counts = Object.fromEntries(PROBE_KINDS.map((k) => [k, 0])) as Record<ProbeKind, number>;
  for (const p of probes) counts[p.kind]++;
  return counts;
}

const emptyRow = (name: string): EvalRow => ({ name, tokensBefore: 0, tokensAfter: 0, score: emptyScore() });

function addToRow(row: EvalRow, before: number, after: number, score: ProbeScore): void {
  row.tokensBefore += before;
  row.tokensAfter += after;
  addScore(row.score, score);
}

interface View {
  name: string;
  tokens: number;
  view: ModelView;
  transcript: Transcript;
}

interface Pipeline {
  name: string;
  job: Job;
  /** The model of the pipeline's LLM steps. */
  llm?: LlmSession;
}

/** One pipeline per strategy entry, or one per model when it has an LLM step (E_CONFIG when no model is given). */
function pipelinesOf(name: string, options: EvalOptions, overrides: Partial<CompactConfig> = {}): Pipeline[] {
  const models = options.llm ?? [];
  const parsed = parseCompactConfig({ ...options.config, ...overrides, strategies: name.split('+'), tokenizer: options.tokenizer.name });
  const job = createJob(parsed, { model: models.length > 0 });
  if (job.llmSteps.length === 0) return [{ name, job }];
  if (models.length === 0) requireSyncSteps(job.steps, 'eval');
  return models.map((llm) => ({ name: models.length > 1 ? `${name} @ ${llm.options.model}` : name, job, llm }));
}

function addLlmFigures(into: RowLlm, steps: readonly StepReport[]): void {
  for (const s of steps) {
    if (!s.llm) continue;
    into.requests += s.llm.usage.requests;
    into.promptTokens += s.llm.usage.promptTokens;
    into.completionTokens += s.llm.usage.completionTokens;
    into.costUsd = into.costUsd === null || s.llm.costUsd === null ? null : into.costUsd + s.llm.costUsd;
    into.ms += s.ms;
  }
}

/**
 * On a span the source replaced whole, the strategies may replace all of it too: the protected tail is the appended
 * empty request alone (see `views`), as the last turn was before the tail became a budget.
 */
const WHOLE_SPAN: Partial<CompactConfig> = { keepLast: 0, keepMessages: 1, keepResults: 0 };

/** Runs every strategy on every transcript and scores what each compacted transcript still carries. Add in input order. */
export class Evaluation {
  private readonly pipelines: Pipeline[];
  private readonly referencePipelines: Pipeline[];
  private readonly rows: EvalRow[];
  private readonly byFormat = formatGroups<EvalGroup>(() => ({ transcripts: 0, rows: [] }));
  private readonly byProject = projectGroups<EvalGroup>(() => ({ transcripts: 0, rows: [] }));
  private readonly referenceRows: EvalRow[];
  private readonly perTranscript: TranscriptEval[] = [];
  private readonly perSpan: ReferenceEval[] = [];
  private readonly opaque: (OpaqueCompaction & { transcript: string })[] = [];
  private readonly probeTotals = probeCounts([]);

  constructor(private readonly options: EvalOptions) {
    this.pipelines = options.strategies.flatMap((name) => pipelinesOf(name, options));
    this.referencePipelines = options.strategies.flatMap((name) => pipelinesOf(name, options, WHOLE_SPAN));
    const names = this.pipelines.map((p) => p.name);
    const given = options.given === undefined ? [] : [options.given];
    this.rows = [emptyRow(ORIGINAL_ROW), ...given.map(emptyRow), ...names.map(emptyRow)];
    this.referenceRows = [emptyRow(ORIGINAL_ROW), emptyRow(SOURCES_ROW), emptyRow(SIZED_ROW), ...names.map(emptyRow)];
    this.pipelines.forEach((p, i) => {
      if (!p.llm) return;
      const figures: RowLlm = { model: p.llm.options.model, requests: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, ms: 0 };
      this.rows[i + 1 + given.length].llm = figures;
      this.referenceRows[i + 3].llm = { ...figures };
    });
  }

  private get window(): number {
    return this.options.config?.window ?? 200_000;
  }

  /**
   * Compacts `transcript` with every pipeline: the original's view first, then each strategy's. With `nextTurn`, each
   * strategy runs as if a new user request had just arrived after the transcript: an empty user message is appended
   * and taken off the result, and the pipelines keep that message alone, so the whole transcript is compactable.
   */
  private async views(transcript: Transcript, rows: EvalRow[], nextTurn = false): Promise<View[]> {
    const pipelines = nextTurn ? this.referencePipelines : this.pipelines;
    const tok = this.options.tokenizer;
    const out: View[] = [{ name: ORIGINAL_ROW, tokens: countTranscript(transcript, tok).total, view: modelView(transcript), transcript }];
    const next: Message = { role: 'user', content: '' };
    const input = nextTurn ? { ...transcript, messages: [...transcript.messages, next] } : transcript;
    const refs = new RefSink();
    // What a step replaces is named in the transcript as read, as `run` names it: the placeholders, and so the tokens
    // scored, are those of the run's output (the next-turn message is the pipelines' own, never replaced).
    refs.enterLayer(transcript);
    const results = await Promise.all(pipelines.map((p) => p.job.fold(input, refs, p.llm)));
    pipelines.forEach((p, i) => {
      let result = results[i].transcript;
      if (nextTurn && result.messages[result.messages.length - 1] === next) result = { ...result, messages: result.messages.slice(0, -1) };
      const figures = rows.find((r) => r.name === p.name)?.llm;
      if (figures) addLlmFigures(figures, results[i].steps);
      out.push({ name: p.name, tokens: countTranscript(result, tok).total, view: modelView(result), transcript: result });
    });
    return out;
  }

  /**
   * `checkpoint` on the whole span as if the next request had arrived (see `views`), its message held to `tokens` of
   * the run's tokenizer: the size of the source's own summary of that span.
   */
  private async sizedCheckpoint(span: Transcript, tokens: number): Promise<View> {
    const tok = this.options.tokenizer;
    const options = this.options.config?.options ?? {};
    const next: Message = { role: 'user', content: '' };
    const refs = new RefSink();
    refs.enterLayer(span);
    const fold = async (budgetTokens: number): Promise<View> => {
      const budget = { ...options, checkpoint: { ...(options.checkpoint ?? {}), budgetTokens: Math.max(100, budgetTokens) } };
      const [pipeline] = pipelinesOf('checkpoint', this.options, { ...WHOLE_SPAN, options: budget });
      let result = (await pipeline.job.fold({ ...span, messages: [...span.messages, next] }, refs)).transcript;
      if (result.messages[result.messages.length - 1] === next) result = { ...result, messages: result.messages.slice(0, -1) };
      return { name: SIZED_ROW, tokens: countTranscript(result, tok).total, view: modelView(result), transcript: result };
    };
    // What the checkpoint leaves beside its message (a system prompt at the head) counts against the summary's size too.
    let budget = tokens;
    let view = await fold(budget);
    for (let i = 0; i < 4 && view.tokens > tokens; i++) view = await fold((budget -= view.tokens - tokens));
    return view;
  }

  /**
   * Scores one transcript (and has the judge ask about it, when there is one); returns the probes each strategy lost.
   * `given` is its compacted form from elsewhere, for the `given` row (required when that row exists).
   */
  async add(transcript: Transcript, source: { file: string; line: number; format?: string }, given?: Transcript): Promise<LostProbe[]> {
    const lost: LostProbe[] = [];
    const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
    const probes = extractProbes(transcript);
    const counts = probeCounts(probes);
    for (const k of PROBE_KINDS) this.probeTotals[k] += counts[k];
    const views = await this.views(transcript, this.rows);
    if (this.options.given !== undefined) {
      if (!given) throw new Error(`Evaluation.add: the "${this.options.given}" row needs the compacted transcript`);
      const tokens = countTranscript(given, this.options.tokenizer).total;
      views.splice(1, 0, { name: this.options.given, tokens, view: modelView(given), transcript: given });
    }
    const before = views[0].tokens;
    const record: TranscriptEval = { id: transcript.id, file: source.file, line: source.line, tokensBefore: before, probes: counts, rows: [] };
    const groups = [this.byFormat.of(source.format), this.byProject.of(transcriptProject(transcript))];
    for (const group of groups) group.transcripts++;
    views.forEach((v, i) => {
      const scored = scoreProbes(probes, v.view, { root });
      addToRow(this.rows[i], before, v.tokens, scored.score);
      for (const group of groups)
        addToRow((group.rows[i] ??= { name: v.name, tokensBefore: 0, tokensAfter: 0, score: emptyScore() }), before, v.tokens, scored.score);
      record.rows.push({ name: v.name, tokensAfter: v.tokens, score: scored.score });
      for (const probe of scored.lost) lost.push({ transcript: transcript.id, strategy: v.name, probe });
    });
    this.perTranscript.push(record);
    const judge = this.options.judge;
    if (judge && this.perTranscript.length <= (this.options.judgeLimit ?? Infinity)) {
      await judge.judge(
        transcript.id,
        probes,
        views.map((v) => ({ name: v.name, transcript: v.transcript })),
        root,
      );
    }
    if (this.options.reference !== false) lost.push(...(await this.addReference(transcript, root, source.format ?? sourceFormatOf(transcript))));
    return lost;
  }

  /**
   * The source's own compactions against the strategies, each on the span the summary replaced. The source's summary
   * replaced all of the span, so the strategies run on it as if the next request had arrived (see `views`).
   */
  private async addReference(transcript: Transcript, root: string | undefined, format: string | undefined): Promise<LostProbe[]> {
    const summaryName = format === undefined ? SOURCES_ROW : summaryRow(format);
    const lost: LostProbe[] = [];
    const tok = this.options.tokenizer;
    for (const o of opaqueCompactions(transcript)) this.opaque.push({ transcript: transcript.id, ...o });
    for (const ref of referenceCompactions(transcript)) {
      const span: Transcript = { id: `${transcript.id}#compaction-${ref.index}`, messages: transcript.messages.slice(ref.from, ref.to) };
      // The working directory only: the checkpoint writes paths relative to it, as it does on the whole transcript.
      if (root !== undefined) span.metadata = { cwd: root };
      const probes = extractProbes(span);
      // What came after the summary, without the source's summaries: what the agent did next (what the source kept
      // beside its summary, before it, came earlier).
      const next = transcript.messages.slice(ref.summaryIndex).filter((m) => !isSourceSummary(m));
      const hindsight = hindsightProbes(span.messages, next);
      const views = await this.views(span, this.referenceRows, true);
      const before = views[0].tokens;
      const summary = { id: span.id, messages: [ref.summary] };
      const summaryTokens = totalOf(countMessage(ref.summary, tok));
      views.splice(
        1,
        0,
        { name: summaryName, tokens: summaryTokens, view: viewOfMessages([ref.summary]), transcript: summary },
        await this.sizedCheckpoint(span, summaryTokens),
      );
      const entry: ReferenceEval = {
        transcript: transcript.id,
        ...(format === undefined ? {} : { format }),
        compaction: ref.index,
        from: ref.from,
        to: ref.to,
        rows: [],
      };
      if (ref.trigger !== undefined) entry.trigger = ref.trigger;
      if (ref.preTokens !== undefined) entry.preTokens = ref.preTokens;
      views.forEach((v, i) => {
        const scored = scoreProbes(probes, v.view, { root });
        const held = scoreHindsight(hindsight, v.view, { root });
        const row = this.referenceRows[i];
        addToRow(row, before, v.tokens, scored.score);
        addHindsightScore((row.hindsight ??= emptyHindsightScore()), held);
        entry.rows.push({ name: v.name, tokensBefore: before, tokensAfter: v.tokens, score: scored.score, hindsight: held });
        if (v.name !== ORIGINAL_ROW) for (const probe of scored.lost) lost.push({ transcript: transcript.id, strategy: v.name, compaction: ref.index, probe });
      });
      this.perSpan.push(entry);
    }
    return lost;
  }

  report(): EvalReport {
    const report: EvalReport = {
      tokenizer: this.options.tokenizer.name,
      strategies: [...this.options.strategies],
      transcripts: this.perTranscript.length,
      probes: { ...this.probeTotals },
      rows: this.rows,
      perTranscript: this.perTranscript,
      reference: { spans: this.perSpan.length, rows: this.perSpan.length > 0 ? this.referenceRows : [], perSpan: this.perSpan },
    };
    // The summary row is named after the source when all spans come from one (`codex summary`).
    const formats = new Set(this.perSpan.map((s) => s.format));
    const [only] = formats;
    this.referenceRows[1].name = formats.size === 1 && only !== undefined ? summaryRow(only) : SOURCES_ROW;
    if (this.opaque.length > 0) report.reference.opaque = this.opaque;
    if (this.options.judge) report.judge = this.options.judge.report();
    const byFormat = this.byFormat.result();
    if (byFormat) report.byFormat = byFormat;
    const byProject = this.byProject.result();
    if (byProject) report.byProject = byProject;
    return report;
  }
}
