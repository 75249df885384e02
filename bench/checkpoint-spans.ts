/**
 * `checkpoint` on every span of the shared corpus where a source compacted (Claude Code's summaries on spotter): held
 * to the size of the source's summary, and at its default budget; then each salience signal turned off, to say which
 * carry the weight, on those spans held to their summary's size and tighter, and on sessions cut at a third, a half and
 * two thirds (full run only). Every table splits the sessions by a hash of their id (bench/lib/held-back.ts): the
 * weights were chosen on the tuning half; the held-back half checks them.
 *
 *   TCOMPACT_CORPUS=../shared/datasets npm run bench -- --only checkpoint-spans
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readInputs } from '../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../src/io/line-reader.js';
import { type Message, isTool } from '../src/model/message.js';
import { isSourceSummary } from '../src/model/recorded.js';
import type { Transcript } from '../src/model/transcript.js';
import { type EvalRow, Evaluation, ORIGINAL_ROW, SIZED_ROW } from '../src/retention/eval-run.js';
import { type HindsightScore, addHindsightScore, emptyHindsightScore, hindsightProbes, scoreHindsight } from '../src/retention/hindsight.js';
import { viewOfMessages } from '../src/retention/model-view.js';
import { type Probe, extractProbes } from '../src/retention/probes.js';
import { referenceCompactions } from '../src/retention/reference-compaction.js';
import { rowFigures } from '../src/retention/render-eval.js';
import { type ProbeScore, addScore, emptyScore, scoreProbes } from '../src/retention/score.js';
import { type CheckpointFacts, extractFacts } from '../src/strategies/_checkpoint-facts.js';
import { NO_SALIENCE, SALIENCE_SIGNALS, SALIENCE_WEIGHTS, type SalienceWeights } from '../src/strategies/_checkpoint-salience.js';
import { renderCheckpoint } from '../src/strategies/checkpoint.js';
import { countMessage, totalOf } from '../src/tokens/breakdown.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';
import { isHeldBack } from './lib/held-back.js';
import type { Benchmark, BenchOutput, Cell, Ratio, Table } from './lib/results.js';

const tok = getTokenizer('o200k_base');
/** The folders cut at several points for the signals' second check (those whose sessions run tools on files). */
const CUT_FOLDERS = ['spotter', 'session-share', 'swe-agent', 'openhands'];
const CUTS = [1 / 3, 1 / 2, 2 / 3];
/** Checkpoint budgets of the cut spans, in characters per span token: tight, so the lists must be cut. */
const CUT_BUDGETS = [0.02, 0.05];
/** The checkpoint held to these shares of the source summary's tokens in the ablation on the source spans. */
const SIZES = [1, 0.5, 0.25];

type Half = 'tuning' | 'held back';
const halfOf = (id: string): Half => (isHeldBack(id) ? 'held back' : 'tuning');

/** The weights compared: the chosen ones, none, and each signal turned off in turn. */
function variants(): [string, SalienceWeights][] {
  return [
    ['all (SALIENCE_WEIGHTS)', SALIENCE_WEIGHTS],
    ['none (span order)', NO_SALIENCE],
    ...SALIENCE_SIGNALS.map((s): [string, SalienceWeights] => [`all but ${s}`, { ...SALIENCE_WEIGHTS, [s]: 0 }]),
  ];
}

async function transcriptsOf(dir: string): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([dir], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) if (item.kind === 'transcript') out.push(item.transcript);
  return out;
}

const rootOf = (t: Transcript) => (typeof t.metadata?.cwd === 'string' ? t.metadata.cwd : undefined);
const tokensOf = (text: string) => totalOf(countMessage({ role: 'user', content: text }, tok));

/** The checkpoint text of `facts` at the largest character budget whose message holds at most `tokens` tokens. */
function fitted(facts: CheckpointFacts, replaced: number, root: string | undefined, weights: SalienceWeights, tokens: number): string {
  const render = (budget: number) => renderCheckpoint(facts, replaced, 'ref', budget, { weights, ...(root === undefined ? {} : { root }) });
  let budget = tokens * 8;
  let text = render(budget);
  for (let i = 0; i < 8; i++) {
    const n = tokensOf(text);
    if (n <= tokens) break;
    budget = Math.max(1, Math.floor((budget * tokens * 0.98) / n));
    text = render(budget);
  }
  return text;
}

/** A span to score a checkpoint on: its messages, the probes of its history and the facts needed again after it. */
interface Span {
  id: string;
  half: Half;
  messages: readonly Message[];
  facts: CheckpointFacts;
  root?: string;
  probes: Probe[];
  hindsight: ReturnType<typeof hindsightProbes>;
  /** The checkpoint's size: the source summary's tokens, or the cut span's budget in characters (the renderer's own unit). */
  size: { tokens: number } | { chars: number };
}

interface Tally {
  hindsight: HindsightScore;
  score: ProbeScore;
}
const emptyTally = (): Tally => ({ hindsight: emptyHindsightScore(), score: emptyScore() });

function scoreSpan(s: Span, text: string, into: Tally): void {
  const view = viewOfMessages([{ role: 'user', content: text }]);
  const options = s.root === undefined ? {} : { root: s.root };
  addHindsightScore(into.hindsight, scoreHindsight(s.hindsight, view, options));
  addScore(into.score, scoreProbes(s.probes, view, options).score);
}

const kinds = (score: ProbeScore) => rowFigures({ name: '', tokensBefore: 0, tokensAfter: 0, score }, undefined).kindsMean;
const of = (t: { retained: number; probes: number }) => `${t.retained}/${t.probes}`;
const pct = (x: number | null | undefined) => (x === null || x === undefined ? null : `${(100 * x).toFixed(1)}%`);

interface SpanFigures {
  span: string;
  half: Half;
  spanTokens: number;
  summary: { tokens: number; facts: number; paths: number; kindsMean: number | null };
  sized: { tokens: number; facts: number; paths: number; kindsMean: number | null };
  checkpoint: { tokens: number; compression: number | null; kindsMean: number | null };
  /** Facts needed again and, of them, paths (the denominators of the retained counts above). */
  needed: { facts: number; paths: number };
}

function spanFigures(id: string, compaction: number, rows: readonly EvalRow[]): SpanFigures {
  const row = (name: string) => rows.find((r) => r.name === name) as EvalRow;
  const original = row(ORIGINAL_ROW);
  const summary = rows[1];
  const sized = row(SIZED_ROW);
  const checkpoint = row('checkpoint');
  const hs = (r: EvalRow) => r.hindsight ?? emptyHindsightScore();
  return {
    span: `${id.slice(0, 8)}#${compaction}`,
    half: halfOf(id),
    spanTokens: original.tokensAfter,
    summary: { tokens: summary.tokensAfter, facts: hs(summary).overall.retained, paths: hs(summary).byReason.path.retained, kindsMean: kinds(summary.score) },
    sized: { tokens: sized.tokensAfter, facts: hs(sized).overall.retained, paths: hs(sized).byReason.path.retained, kindsMean: kinds(sized.score) },
    checkpoint: {
      tokens: checkpoint.tokensAfter,
      compression: rowFigures(checkpoint, original).compression,
      kindsMean: kinds(checkpoint.score),
    },
    needed: { facts: hs(original).overall.probes, paths: hs(original).byReason.path.probes },
  };
}

function spanRow(f: SpanFigures): Cell[] {
  return [
    f.span,
    f.half,
    f.spanTokens,
    f.summary.tokens,
    f.sized.tokens,
    `${f.summary.facts}/${f.needed.facts} · ${f.sized.facts}/${f.needed.facts}`,
    `${f.summary.paths}/${f.needed.paths} · ${f.sized.paths}/${f.needed.paths}`,
    `${pct(f.summary.kindsMean)} · ${pct(f.sized.kindsMean)}`,
    f.checkpoint.tokens,
    f.checkpoint.compression,
    pct(f.checkpoint.kindsMean),
  ];
}

/** The per-span held-to-size condition of the must-show: at least the summary's facts and paths, more probe kinds. */
const sizedBeats = (f: SpanFigures) =>
  f.sized.tokens <= f.summary.tokens &&
  f.sized.facts >= f.summary.facts &&
  f.sized.paths >= f.summary.paths &&
  (f.sized.kindsMean ?? 0) > (f.summary.kindsMean ?? 0);

/** Hindsight cells of one half: facts needed again kept, of them paths, and probe kinds kept. */
function cells(t: Tally): Cell[] {
  return [of(t.hindsight.overall), of(t.hindsight.byReason.path), of(t.hindsight.byReason.command), pct(kinds(t.score))];
}

function ablation(spans: readonly Span[], share: number): { name: string; tuning: Tally; heldBack: Tally }[] {
  return variants().map(([name, weights]) => {
    const halves = { tuning: emptyTally(), heldBack: emptyTally() };
    for (const s of spans) {
      const options = { weights, ...(s.root === undefined ? {} : { root: s.root }) };
      const text =
        'chars' in s.size
          ? renderCheckpoint(s.facts, s.messages.length, 'ref', Math.round(s.size.chars * share), options)
          : fitted(s.facts, s.messages.length, s.root, weights, Math.max(100, Math.round(s.size.tokens * share)));
      scoreSpan(s, text, s.half === 'tuning' ? halves.tuning : halves.heldBack);
    }
    return { name, ...halves };
  });
}

function sourceSpans(t: Transcript): Span[] {
  const root = rootOf(t);
  return referenceCompactions(t).map((ref) => {
    const messages = t.messages.slice(ref.from, ref.to);
    return spanOf(t.id, root, messages, t.messages.slice(ref.summaryIndex), { tokens: totalOf(countMessage(ref.summary, tok)) });
  });
}

/** A span of `messages`, what the session needed again taken from `after` (source summaries aside). */
function spanOf(id: string, root: string | undefined, messages: readonly Message[], after: readonly Message[], size: Span['size']): Span {
  return {
    id,
    half: halfOf(id),
    messages,
    facts: extractFacts(messages),
    ...(root === undefined ? {} : { root }),
    probes: extractProbes({ messages }),
    hindsight: hindsightProbes(
      messages,
      after.filter((m) => !isSourceSummary(m)),
    ),
    size,
  };
}

/** The cut at `share` of the messages, moved past tool results so a call and its result stay together. */
function cutAt(messages: readonly Message[], share: number): number {
  let cut = Math.floor(messages.length * share);
  while (cut < messages.length && isTool(messages[cut])) cut++;
  return cut;
}

function cutSpans(t: Transcript, charsPerToken: number): Span[] {
  if (t.messages.length < 30) return [];
  const root = rootOf(t);
  return CUTS.map((share) => {
    const cut = cutAt(t.messages, share);
    const messages = t.messages.slice(0, cut);
    let tokens = 0;
    for (const m of messages) tokens += totalOf(countMessage(m, tok));
    return spanOf(t.id, root, messages, t.messages.slice(cut), { chars: Math.max(1000, Math.round(tokens * charsPerToken)) });
  });
}

const ABLATION_COLUMNS = [
  'weights',
  'tuning: facts needed again',
  'paths',
  'commands',
  'probe kinds',
  'held back: facts needed again',
  'paths',
  'commands',
  'probe kinds',
];

export const checkpointSpansBench: Benchmark = {
  name: 'checkpoint-spans',
  title: "checkpoint on the spans where a source compacted: at the summary's size, at its default budget, and each salience signal off",
  description:
    "With TCOMPACT_CORPUS set: every span of the shared corpus that a source's own summary replaced (eval's reference spans: Claude Code's summaries on spotter). Per span, the summary beside `checkpoint` held to the summary's tokens (eval's sized row) and at its default budget: tokens (o200k_base), the span's facts the session needed again after the summary (hindsight probes) kept, of them paths, and the mean of the probe kinds kept. Then the salience weights, all and each signal off, with the checkpoint held to 1x, 1/2x and 1/4x the summary's tokens on the same spans; and (full run) on every session of 30 messages or more of spotter, session-share, swe-agent and openhands cut at a third, a half and two thirds, at 0.02 and 0.05 characters per span token. Sessions are split by the SHA-256 of their id (a subagent with its session): the weights were chosen on the tuning half, the held-back half checks them (bench/checkpoint-salience.ts, where they were chosen, hashes a subagent's own id, so on the cut sessions the halves differ from its halves by some subagents).",
  entry: import.meta.url,
  async run({ quick, log }): Promise<BenchOutput> {
    const env = process.env.TCOMPACT_CORPUS;
    const corpus = env === undefined ? undefined : resolve(env);
    if (corpus === undefined || !existsSync(corpus)) {
      return { params: {}, results: {}, tables: [], pending: ['needs the shared corpus: run with TCOMPACT_CORPUS=../shared/datasets'] };
    }
    const folders = readdirSync(corpus).filter((f) => existsSync(join(corpus, f, 'files')));
    const byFolder = new Map<string, Transcript[]>();
    for (const f of folders) byFolder.set(f, await transcriptsOf(join(corpus, f, 'files')));
    const compacted = [...byFolder.values()].flat().filter((t) => referenceCompactions(t).length > 0);
    log(`checkpoint-spans: ${compacted.length} sessions with a source's summary in ${folders.join(', ')}`);

    const e = new Evaluation({ strategies: ['checkpoint'], tokenizer: tok });
    for (const t of compacted) await e.add(t, { file: t.id, line: 1 });
    const perSpan = e.report().reference.perSpan.map((s) => spanFigures(s.transcript, s.compaction, s.rows));
    const total = (half?: Half) => {
      const fs = perSpan.filter((f) => half === undefined || f.half === half);
      const sum = (get: (f: SpanFigures) => number) => fs.reduce((n, f) => n + get(f), 0);
      return { spans: fs.length, spanTokens: sum((f) => f.spanTokens), checkpointTokens: sum((f) => f.checkpoint.tokens) };
    };

    const spans = compacted.flatMap(sourceSpans);
    const sourceAblation = SIZES.map((share) => ({ share, rows: ablation(spans, share) }));
    const cutAblation: { charsPerToken: number; spans: number; rows: ReturnType<typeof ablation> }[] = [];
    if (!quick) {
      const sessions = CUT_FOLDERS.flatMap((f) => byFolder.get(f) ?? []);
      for (const budget of CUT_BUDGETS) {
        const cuts = sessions.flatMap((t) => cutSpans(t, budget));
        log(`checkpoint-spans: ${cuts.length} cut spans at ${budget} characters per token`);
        cutAblation.push({ charsPerToken: budget, spans: cuts.length, rows: ablation(cuts, 1) });
      }
    }

    const tables: Table[] = [
      {
        title: "Per span: the source's summary beside checkpoint held to its size (summary · checkpoint), and checkpoint at its default budget",
        columns: [
          'span',
          'half',
          'span tokens',
          'summary tokens',
          'checkpoint tokens (sized)',
          'facts needed again',
          'of them paths',
          'probe kinds kept',
          'default: tokens',
          'default: compression',
          'default: probe kinds',
        ],
        rows: perSpan.map(spanRow),
        notes: [
          ...(['tuning', 'held back'] as const).map((h) => {
            const t = total(h);
            return `${h}: ${t.spans} spans, default budget ${t.checkpointTokens > 0 ? (t.spanTokens / t.checkpointTokens).toFixed(1) : 'n/a'}x over the spans.`;
          }),
          `Held to the summary's size, checkpoint keeps at least the summary's facts needed again and paths, and more probe kinds, on ${perSpan.filter(sizedBeats).length} of ${perSpan.length} spans.`,
        ],
      },
      ...sourceAblation.map((a): Table => ({
        title: `Salience signals on the source spans, checkpoint held to ${a.share === 1 ? "the summary's size" : `${a.share}x the summary's size`}`,
        columns: ABLATION_COLUMNS,
        rows: a.rows.map((r) => [r.name, ...cells(r.tuning), ...cells(r.heldBack)]),
        notes:
          a.share === 1
            ? [
                'The checkpoint is rendered here outside the pipeline (same renderer, same token fit), so its figures can differ by a fact from the sized column above.',
              ]
            : [],
      })),
      ...cutAblation.map((a): Table => ({
        title: `Salience signals on sessions cut at a third, a half and two thirds (${a.spans} spans), ${a.charsPerToken} characters per span token`,
        columns: ABLATION_COLUMNS,
        rows: a.rows.map((r) => [r.name, ...cells(r.tuning), ...cells(r.heldBack)]),
      })),
    ];
    const least = (get: (f: SpanFigures) => number | null) => (perSpan.length === 0 ? null : Math.min(...perSpan.map((f) => get(f) ?? 0)));
    const leastCompression = least((f) => f.checkpoint.compression);
    const leastKinds = least((f) => f.checkpoint.kindsMean);
    const ratios: Ratio[] = [
      {
        name: 'checkpoint at its default budget, least compression of a span a source compacted',
        value: leastCompression,
        target: '>= 7',
        met: leastCompression === null ? null : leastCompression >= 7,
      },
      {
        name: 'checkpoint at its default budget, least probe kinds kept on a span a source compacted',
        value: leastKinds === null ? null : 100 * leastKinds,
        unit: '%',
        target: '>= 90',
        met: leastKinds === null ? null : leastKinds >= 0.9,
      },
      {
        name: "spans where checkpoint held to the summary's size keeps its facts needed again and paths, and more probe kinds",
        value: perSpan.filter(sizedBeats).length,
        unit: ` of ${perSpan.length}`,
        met: perSpan.length > 0 && perSpan.every(sizedBeats),
      },
    ];
    const summarize = (rows: ReturnType<typeof ablation>) =>
      rows.map((r) => ({
        name: r.name,
        tuning: { ...r.tuning.hindsight, kindsMean: kinds(r.tuning.score) },
        heldBack: { ...r.heldBack.hindsight, kindsMean: kinds(r.heldBack.score) },
      }));
    return {
      params: { tokenizer: tok.name, folders, sizes: SIZES, cutFolders: quick ? [] : CUT_FOLDERS, cuts: CUTS, cutBudgets: quick ? [] : CUT_BUDGETS },
      results: {
        spans: perSpan,
        sourceAblation: sourceAblation.map((a) => ({ share: a.share, rows: summarize(a.rows) })),
        cutAblation: cutAblation.map((a) => ({ charsPerToken: a.charsPerToken, spans: a.spans, rows: summarize(a.rows) })),
      },
      tables,
      ratios,
    };
  },
};
