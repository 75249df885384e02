import { type EvalGroup, type EvalReport, type EvalRow, ORIGINAL_ROW } from './eval-run.js';
import { NO_VALUE, int, pct, ratio, retained, usdFine } from '../report/format.js';
import { markdownTable } from '../report/markdown-table.js';
import { renderGroupMatrix } from '../report/render-groups.js';
import { HINDSIGHT_REASONS } from './hindsight.js';
import { JUDGE_DIMENSIONS } from './judge.js';
import { REQUEST_OVERLAP_THRESHOLD } from './key-phrases.js';
import { PROBE_KINDS } from './probes.js';
import { recall } from './score.js';

/** Derived figures of a row, as eval.json and eval.md show them. */
export interface RowFigures {
  /** tokensBefore / tokensAfter; null when nothing is left. */
  compression: number | null;
  /** 1 - tokensAfter / tokensBefore; 0 for an empty input. */
  saved: number;
  recall: { artifact: number | null; command: number | null; error: number | null; intent: number | null; task: number | null; overall: number | null };
  failedCommands: number | null;
  unresolvedErrors: number | null;
  lastRequest: number | null;
  /** Mean of the per-kind recalls, over the kinds that have probes: each kind of fact weighs the same. */
  kindsMean: number | null;
  /**
   * Points of `kindsMean` lost (against the original's own) per point of tokens saved: lower keeps more per token
   * saved. Null when nothing was saved.
   */
  lossPerSaving: number | null;
}

function kindsMean(row: EvalRow): number | null {
  const recalls = PROBE_KINDS.map((k) => recall(row.score.byKind[k])).filter((r): r is number => r !== null);
  return recalls.length === 0 ? null : recalls.reduce((a, b) => a + b, 0) / recalls.length;
}

export function rowFigures(row: EvalRow, original: EvalRow | undefined): RowFigures {
  const saved = row.tokensBefore > 0 ? 1 - row.tokensAfter / row.tokensBefore : 0;
  const overall = recall(row.score.overall);
  const mean = kindsMean(row);
  const base = original ? kindsMean(original) : null;
  return {
    compression: row.tokensAfter > 0 ? row.tokensBefore / row.tokensAfter : null,
    saved,
    recall: {
      artifact: recall(row.score.byKind.artifact),
      command: recall(row.score.byKind.command),
      error: recall(row.score.byKind.error),
      intent: recall(row.score.byKind.intent),
      task: recall(row.score.byKind.task),
      overall,
    },
    failedCommands: recall(row.score.failedCommands),
    unresolvedErrors: recall(row.score.unresolvedErrors),
    lastRequest: recall(row.score.lastRequest),
    kindsMean: mean,
    lossPerSaving: saved > 0 && mean !== null && base !== null ? Math.max(0, base - mean) / saved : null,
  };
}

function table(rows: readonly EvalRow[]): string[] {
  const original = rows.find((r) => r.name === ORIGINAL_ROW);
  return markdownTable(
    [
      'strategy',
      'tokens before',
      'tokens after',
      'compression',
      'saved',
      'artifacts',
      'commands',
      'failed cmds',
      'errors',
      'unresolved',
      'intent',
      'last request',
      'open tasks',
      'overall',
      'kinds mean',
      'loss / saving',
    ],
    rows.map((r) => {
      const f = rowFigures(r, original);
      return [
        r.name,
        int(r.tokensBefore),
        int(r.tokensAfter),
        ratio(f.compression),
        pct(f.saved),
        retained(r.score.byKind.artifact),
        retained(r.score.byKind.command),
        retained(r.score.failedCommands),
        retained(r.score.byKind.error),
        retained(r.score.unresolvedErrors),
        retained(r.score.byKind.intent),
        retained(r.score.lastRequest),
        retained(r.score.byKind.task),
        retained(r.score.overall),
        pct(f.kindsMean),
        f.lossPerSaving === null ? NO_VALUE : f.lossPerSaving.toFixed(3),
      ];
    }),
    'lrrrrrrrrrrrrrrr',
  );
}

/** The reference rows' hindsight recall: what each context kept of the facts the session used again after the point. */
function hindsightTable(rows: readonly EvalRow[]): string[] {
  const withHindsight = rows.filter((r): r is EvalRow & Required<Pick<EvalRow, 'hindsight'>> => r.hindsight !== undefined);
  if (withHindsight.length === 0) return [];
  return [
    '',
    '**Hindsight**: the facts of each span the session used again after the compaction: paths read, edited or named',
    'again, commands re-run, error lines or their identifiers named again, requests a user correction restates (each',
    'retained under the rule of its kind).',
    '',
    ...markdownTable(
      ['strategy', ...HINDSIGHT_REASONS.map((k) => HINDSIGHT_LABELS[k]), 'hindsight'],
      withHindsight.map((r) => [r.name, ...HINDSIGHT_REASONS.map((k) => retained(r.hindsight.byReason[k])), retained(r.hindsight.overall)]),
      'lrrrrr',
    ),
  ];
}

/** How many spans each source compacted: `claude-code 5, codex 1` (Claude Code's compact summaries, Codex's
 * `compacted`, Gemini CLI's compression, pi's and OpenCode's summaries...). */
function spanSources(r: EvalReport): string {
  const counts = new Map<string, number>();
  for (const span of r.reference.perSpan) counts.set(span.format ?? 'source not known', (counts.get(span.format ?? 'source not known') ?? 0) + 1);
  return [...counts].map(([format, n]) => `${format} ${n}`).join(', ');
}

/**
 * Span by span, the source's summary beside the checkpoint held to its size (and every other row): tokens,
 * compression, probe kinds kept, and the facts needed again in all and for paths.
 */
function perSpanTable(r: EvalReport): string[] {
  if (r.reference.perSpan.length === 0) return [];
  const rows = r.reference.perSpan.flatMap((span) =>
    span.rows
      .filter((row) => row.name !== ORIGINAL_ROW)
      .map((row) => {
        const f = rowFigures(row, span.rows[0]);
        return [
          `${span.transcript.slice(0, 8)} #${span.compaction}`,
          row.name,
          int(row.tokensBefore),
          int(row.tokensAfter),
          f.compression === null ? NO_VALUE : ratio(f.compression),
          f.kindsMean === null ? NO_VALUE : pct(f.kindsMean),
          row.hindsight ? retained(row.hindsight.overall) : NO_VALUE,
          row.hindsight ? retained(row.hindsight.byReason.path) : NO_VALUE,
        ];
      }),
  );
  return [
    '',
    '**Span by span**: each span the source compacted, its summary beside each row on the same messages.',
    '',
    ...markdownTable(['span', 'row', 'tokens before', 'tokens after', 'compression', 'kinds mean', 'facts needed again', 'of them paths'], rows, 'llrrrrrr'),
  ];
}

const HINDSIGHT_LABELS: Record<(typeof HINDSIGHT_REASONS)[number], string> = {
  path: 'paths again',
  command: 'commands re-run',
  error: 'errors referred to',
  correction: 'corrections',
};

/** eval.md: the strategies x metrics table, the reference comparison when there is one, and the rule. */
export function renderEvaluation(r: EvalReport): string {
  const p = r.probes;
  const out = [
    '# tcompact eval',
    '',
    `${r.transcripts} transcripts, tokenizer ${r.tokenizer}. Probes from the original transcripts: ${p.artifact} artifacts, ${p.command} commands, ` +
      `${p.error} errors, ${p.intent} intent (each request, plus the last one verbatim), ${p.task} open tasks.`,
    '',
    ...table(r.rows),
  ];
  const llmRows = r.rows.filter((row) => row.llm);
  if (llmRows.length > 0) {
    out.push(
      '',
      '## LLM steps',
      '',
      'What each row with a model cost over the transcripts above (time: the LLM steps summed, varies from run to run).',
      '',
      ...markdownTable(
        ['row', 'model', 'requests', 'prompt tokens', 'completion tokens', 'cost', 'time'],
        llmRows.map((row) => {
          const l = row.llm!;
          return [
            row.name,
            l.model,
            int(l.requests),
            int(l.promptTokens),
            int(l.completionTokens),
            l.costUsd === null ? NO_VALUE : usdFine(l.costUsd),
            `${(l.ms / 1000).toFixed(1)} s`,
          ];
        }),
        'llrrrrr',
      ),
    );
  }
  if (r.reference.spans > 0) {
    out.push(
      '',
      "## Against the source's own compaction",
      '',
      `${r.reference.spans} spans that the source replaced with its own summary (${spanSources(r)}), probes`,
      'taken from each span; the summary and every strategy judged on the same span. "checkpoint at the summary\'s size"',
      "is `checkpoint` with its message held to the summary's own tokens on each span (`budgetTokens`).",
      '',
      ...table(r.reference.rows),
      ...hindsightTable(r.reference.rows),
      ...perSpanTable(r),
    );
  }
  const opaque = r.reference.opaque ?? [];
  if (opaque.length > 0) {
    const transcripts = new Set(opaque.map((o) => o.transcript)).size;
    if (r.reference.spans === 0) out.push('', "## Against the source's own compaction");
    out.push(
      '',
      `${opaque.length} compactions of the source in ${transcripts} transcripts have an opaque summary (Codex's encrypted`,
      '`compaction` item): the source summarized there, but its summary cannot be read, so it is not scored.',
    );
  }
  if (r.judge) {
    const j = r.judge;
    out.push(
      '',
      `## Judge (${j.model})`,
      '',
      `${j.transcripts} transcripts; one question per dimension and context, answers graded against the original's probes`,
      `(paths as above, other probes by key-phrase overlap). ${int(j.requests)} requests, ${int(j.promptTokens)} prompt and ${int(j.completionTokens)} completion tokens${j.cacheHits > 0 ? `; ${int(j.cacheHits)} answers reused for identical questions` : ''}.`,
      '',
      ...markdownTable(
        ['context', ...JUDGE_DIMENSIONS, 'failed questions'],
        j.rows.map((row) => [
          row.name,
          ...JUDGE_DIMENSIONS.map((d) => retained(row.byDimension[d])),
          `${JUDGE_DIMENSIONS.reduce((n, d) => n + row.byDimension[d].failed, 0)} of ${JUDGE_DIMENSIONS.reduce((n, d) => n + row.byDimension[d].questions, 0)}`,
        ]),
        'lrrrrr',
      ),
    );
  }
  out.push(
    '',
    'Recall is retained/probes summed over transcripts; "kinds mean" averages the kinds that have probes, so many',
    'requests (tau-bench) do not drown a few files or errors. A probe is retained when the compacted transcript, as a model',
    'receives it (message text, tool-call names and argument values, reasoning, summaries and checkpoints; never',
    'metadata), still holds it: paths (normalized, any spelling used, or relative to the working directory) and',
    'commands as whole words, error lines and open tasks verbatim after whitespace collapsing, the last request',
    `verbatim, and each request when at least ${REQUEST_OVERLAP_THRESHOLD * 100}% of its key phrases (pairs of consecutive content words) remain.`,
    '"loss / saving" is the points of "kinds mean" lost against the original per point of tokens saved: lower keeps',
    "more per token saved. The `original` row is the rule's ceiling. lost.jsonl lists every probe each strategy lost.",
  );
  if (r.byFormat)
    out.push(
      '',
      '## By source format',
      '',
      'Tokens saved and probe recall of each row, for the transcripts of each source format.',
      '',
      ...groupTable(r.byFormat, { corner: 'row', groupsAs: 'columns' }),
    );
  if (r.byProject)
    out.push(
      '',
      '## By project',
      '',
      'Tokens saved and probe recall of each row, for the transcripts of each project (the folder each session worked in, as its agent recorded it).',
      '',
      ...groupTable(r.byProject, { corner: 'project', groupsAs: 'rows' }),
    );
  return `${out.join('\n')}\n`;
}

/** Each row's tokens saved and probe recall per group: groups as columns (a few source formats) or as rows (projects). */
function groupTable(groups: Readonly<Record<string, EvalGroup>>, layout: Parameters<typeof renderGroupMatrix>[3]): string[] {
  const keys = Object.keys(groups);
  const names = groups[keys[0]].rows.map((row) => row.name);
  const cellOf = (key: string, name: string) => {
    const row = groups[key].rows.find((x) => x.name === name);
    if (!row) return NO_VALUE;
    const saved = row.tokensBefore > 0 ? 1 - row.tokensAfter / row.tokensBefore : 0;
    return `${pct(saved)} saved, recall ${retained(row.score.overall)}`;
  };
  return renderGroupMatrix(
    keys.map((key) => ({ key, label: `${key} (${groups[key].transcripts})` })),
    names,
    cellOf,
    layout,
  );
}
