import { NO_VALUE, int, pct, ratio, signedChange, usdShort } from '../report/format.js';
import { markdownTable } from '../report/markdown-table.js';
import { fidelityLine } from '../replay/fidelity/fidelity-summary.js';
import type { TuneReport, TuneResult } from './tune-run.js';

const TIGHT = { layout: 'tight' } as const;

/** `r`'s cost with caching against `none`'s, signed ("-33.4%"). */
function vsNone(r: TuneResult, none: TuneResult): string {
  return signedChange(none.cost.withCache > 0 ? r.cost.withCache / none.cost.withCache - 1 : 0);
}

/** How many times `floor`'s cost with caching `r` costs ("1.08x"). */
function timesFloor(r: TuneResult, floor: TuneResult): string {
  return ratio(floor.cost.withCache > 0 ? r.cost.withCache / floor.cost.withCache : null);
}

/** A setting's cost over the frontier's bound at its recall ("1.21x at 90%"), then with each transcript held to a floor ("; 1.08x each at 95%"). */
export function boundCell(r: TuneResult): string {
  const b = r.againstBound;
  if (!b) return NO_VALUE;
  return `${ratio(b.times)} at ${pct(b.floor)}${b.each ? `; ${ratio(b.each.times)} each at ${pct(b.each.floor)}` : ''}`;
}

/** The frontier: at each floor the cheapest schedule found and the bound, with caching. */
function frontierSection(r: TuneReport): string[] {
  const none = r.baselines.none.cost.withCache;
  const times = (x: number) => ratio(none > 0 ? x / none : null);
  return [
    '## The recall frontier',
    '',
    "At each recall floor, the cheapest schedule of `optimal`'s edits found that keeps at least that share of the facts " +
      'needed again (`optimal@R`, replayed; it meets the floor in every transcript), and the Lagrangian bound: no schedule of ' +
      'those edits whose recall over the archive reaches the floor costs less; bound, each: none that keeps the floor in every ' +
      "transcript costs less (the transcripts' own bounds summed). Floor 0 is `optimal`, recall not weighed. " +
      "Each setting's distance from the bound is its cost over the bound at the highest floor its recall reaches, and over " +
      'the bound, each, at the highest floor its lowest recall in one transcript reaches.',
    '',
    ...markdownTable(
      ['floor', 'found', 'vs none', 'its recall', 'bound', 'vs none', 'found / bound', 'bound, each', 'found / bound, each', 'floor met in'],
      r.frontier.map((f) => [
        pct(f.floor),
        usdShort(f.found.cost),
        times(f.found.cost),
        pct(f.found.recall),
        usdShort(f.bound),
        times(f.bound),
        ratio(f.gap),
        usdShort(f.eachBound),
        ratio(f.eachBound > 0 ? f.found.cost / f.eachBound : null),
        `${f.feasible}/${f.transcripts}`,
      ]),
      'rrrrrrrrrr',
      TIGHT,
    ),
    '',
  ];
}

function row(r: TuneResult, none: TuneResult): string[] {
  return [
    `${r.name}${r.frontier ? ' *' : ''}`,
    usdShort(r.cost.withCache),
    vsNone(r, none),
    usdShort(r.cost.withoutCache),
    int(r.billedInput),
    `${pct(r.hindsightRecall)} (${r.hindsight.retained}/${r.hindsight.probes} at ${r.hindsight.points} edits)`,
    boundCell(r),
  ];
}

/** The floor among results-only clears, which keep what the sessions need again, against the recommendation. */
function resultsFloorLine(r: Pick<TuneReport, 'baselines' | 'recommended'>): string {
  const floor = r.baselines.optimalResults;
  return (
    `Among schedules that clear tool results only (every call's input kept, no compaction), \`optimal-results\` costs ${usdShort(floor.cost.withCache)}, ` +
    `${vsNone(floor, r.baselines.none)} against none, keeping ${pct(floor.hindsightRecall)} of what the sessions needed again; ` +
    `the recommendation costs ${timesFloor(r.recommended, floor)} that.`
  );
}

/** tune.md: the recommendation first, then the tools, the candidates (frontier marked) and the exports. */
export function renderTune(r: TuneReport): string {
  const none = r.baselines.none;
  const rec = r.recommended;
  const lines = [
    '# tcompact tune',
    '',
    `${r.transcripts} transcripts, window ${int(r.window)} tokens, hindsight recall floor ${pct(r.recallFloor)}` +
      (r.tokenRatio === undefined
        ? '.'
        : r.tokenRatio === 'recorded'
          ? "; counts scaled to each transcript's provider tokens, as its recorded usage measures them."
          : `; counts scaled by ${r.tokenRatio} to the provider's tokens.`),
    '',
    !rec.beatsNone
      ? `**Recommended: none**: no setting that keeps ${pct(r.recallFloor)} of what the sessions needed again costs less with caching than no compaction (${usdShort(none.cost.withCache)}); the cheapest, ${rec.name}, costs ${usdShort(rec.cost.withCache)}. Its exports are below for reference.`
      : rec.meetsFloor
        ? `**Recommended: ${rec.name}**: ${usdShort(rec.cost.withCache)} with caching against ${usdShort(none.cost.withCache)} without compaction, keeping ${pct(rec.hindsightRecall)} of what the sessions needed again.`
        : `**No candidate keeps ${pct(r.recallFloor)}** of what the sessions needed again; the one that keeps most is ${rec.name} (${pct(rec.hindsightRecall)}, ${usdShort(rec.cost.withCache)} with caching).`,
    '',
    `The floor: \`optimal\`, the hindsight-optimal schedule (clears and compactions planned with the whole transcript known, recall not weighed), costs ${usdShort(r.baselines.optimal.cost.withCache)} with caching, ${vsNone(r.baselines.optimal, none)} against none; the recommendation costs ${timesFloor(rec, r.baselines.optimal)} the floor. ${resultsFloorLine(r)}`,
    '',
    ...(r.fidelity ? [`${fidelityLine(r.fidelity)} The figures below rest on that replay; \`simulate\` gives the table per session.`, ''] : []),
    ...frontierSection(r),
    `Tuned to the archive's ${r.grid.cache} cache, warm for ${r.grid.expectedCalls} calls after a call on average: the \`-at-least\` clears free at least what pays for the rewrite they cause, and the cache-aware ContextManager weighs its edits the same way.`,
    '',
    '## Tools',
    '',
    "Share: the tool's results in all the tokens of the archive. Needed again: its calls whose file or command the session used after the result (tools with neither are not counted).",
    '',
    ...markdownTable(
      ['tool', 'calls', 'result tokens', 'share', 'needed again'],
      r.tools.map((t) => [
        t.tool,
        int(t.calls),
        int(t.resultTokens),
        pct(t.share),
        t.neededRate === null ? NO_VALUE : `${pct(t.neededRate)} (${t.neededLater}/${t.calls - t.untargeted})`,
      ]),
      'lrrrr',
      TIGHT,
    ),
    '',
    `Excluded by the candidates that exclude: ${r.neededTools.length > 0 ? r.neededTools.join(', ') : 'none (no tool was needed again at least half the time)'}.`,
    '',
    '## Candidates',
    '',
    "Each replayed as its runtime applies it; hindsight recall is scored at every edit the setting made. * marks the frontier: no other candidate is cheaper with caching and keeps as much. vs bound: the cost over the recall frontier's bound at the highest floor the recall reaches, then over the bound with each transcript held to the floor at the highest floor its lowest recall in one transcript reaches (below 1× where a setting uses edits the bound does not plan: tool exclusions, other triggers).",
    '',
    ...markdownTable(
      ['setting', 'cost with caching', 'vs none', 'without caching', 'input billed', 'hindsight recall', 'vs bound'],
      [none, r.baselines.default, r.baselines.optimal, r.baselines.optimalResults, ...r.candidates].map((c) => row(c, none)),
      'lrrrrrr',
      TIGHT,
    ),
    '',
    '## Exports',
    '',
    "Each file loads as it is in its runtime; each was replayed on the archive with that runtime's semantics.",
    '',
    ...markdownTable(
      ['runtime', 'file', 'exact', 'cost with caching', 'hindsight recall', 'note'],
      r.exports.map((e) => [e.runtime, e.file, e.exact ? 'yes' : 'closest', usdShort(e.cost.withCache), pct(e.hindsightRecall), e.note ?? '']),
      'lllrrl',
      TIGHT,
    ),
    '',
    "How each runtime loads its file (`settings`: the file's JSON), as the replay assumes:",
    '',
    ...r.exports.map((e) => `- ${e.runtime}: ${e.load}`),
    '',
    "tcompact's own setting (tcompact.json) inside each runtime, through its adapter:",
    '',
    ...r.exports.flatMap((e) => (e.adapter ? [`- ${e.runtime}: ${e.adapter}`] : [])),
    '',
  ];
  return lines.join('\n');
}
