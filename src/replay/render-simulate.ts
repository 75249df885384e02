import { NO_VALUE, change, int, pct, ratio, retained, usd } from '../report/format.js';
import { markdownTable } from '../report/markdown-table.js';
import { renderGroupMatrix } from '../report/render-groups.js';
import { PROBE_KINDS } from '../retention/probes.js';
import { recall } from '../retention/score.js';
import type { ByGroup, PolicyTotals, SimulationReport } from './simulation-report.js';
import type { CacheReport } from './billing/cache-choice.js';
import { CACHE_RULES, type CacheModelName, type CacheRules } from '../provider/cache-rules.js';
import { billedModelNames, byModelRows, priceSource } from './by-model.js';
import { compactionCallsText } from './compaction-calls-text.js';
import { fidelitySection } from './fidelity/render-fidelity.js';

const KIND_LABELS: Record<(typeof PROBE_KINDS)[number], string> = {
  artifact: 'artifacts',
  command: 'commands',
  error: 'errors',
  intent: 'intent',
  task: 'open tasks',
};

/** The source's own compaction beside ours at the same points: tokens, cost and what each kept. */
function sourcePointsSection(r: SimulationReport): string[] {
  const sp = r.sourcePoints;
  if (!sp) return [];
  const rows = r.policies.filter((p): p is PolicyTotals & Required<Pick<PolicyTotals, 'atSourcePoints'>> => p.atSourcePoints !== undefined);
  const kinds = Object.entries(sp.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    '',
    "## At the source's own compaction points",
    '',
    `${sp.points} points in ${sp.transcripts} transcripts where the source compacted or was asked to (${kinds || 'none'}); ` +
      `${sp.withSummary} with a recorded summary, which \`source\` puts in place of the context` +
      (sp.opaque ? ` (${sp.opaque} of them opaque: Codex's summary is encrypted, so \`source\` keeps the messages Codex kept, without it)` : '') +
      '. Recall: the probes of every ' +
      "message before the point (eval's probes), found in the context each policy kept; `source` counts only the points " +
      'with a summary. Billed input and costs are over whole replays. "hindsight": the facts of before the point the session ' +
      'used again after it (paths read, edited or named again, commands re-run, error lines or their identifiers referred ' +
      'back to, requests a user correction restates), found in the context each policy kept.',
    '',
    ...markdownTable(
      [
        'policy',
        'points',
        'input billed',
        'vs none',
        'cost (cached)',
        'prompt before',
        'prompt after',
        ...PROBE_KINDS.map((k) => KIND_LABELS[k]),
        'overall',
        'kinds mean',
        'hindsight',
      ],
      rows.map((p) => {
        const a = p.atSourcePoints;
        const recalls = PROBE_KINDS.map((k) => recall(a.score.byKind[k])).filter((x): x is number => x !== null);
        return [
          p.name,
          int(a.points),
          int(p.billedInput),
          change(-p.reductionVsNone),
          usd(p.cost.withCache),
          int(a.tokensBefore),
          int(a.tokensAfter),
          ...PROBE_KINDS.map((k) => retained(a.score.byKind[k])),
          retained(a.score.overall),
          recalls.length === 0 ? NO_VALUE : pct(recalls.reduce((x, y) => x + y, 0) / recalls.length),
          retained(a.hindsight.overall),
        ];
      }),
      'lrrrrrrrrrrrrrr',
    ),
  ];
}

const duration = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);

/** One cache model's rules, as "cost (cached)" applied them. */
function cacheRulesText(rules: CacheRules, m: NonNullable<CacheReport['models'][CacheModelName]>): string {
  if (rules.kind === 'off') return 'every input token at the input price';
  const reads =
    rules.kind === 'previous'
      ? "at each call, the leading messages identical to the previous call's prompt are cache reads and the rest cache writes (a compaction or micro-compaction that rewrites an early message turns everything after it into writes), "
      : '';
  return (
    `${reads}${m.ttlSeconds === null ? 'no expiry' : `entries expire ${duration(m.ttlSeconds)} after their last use`}` +
    `${m.minTokens > 0 ? `, nothing cached below ${int(m.minTokens)} tokens` : ''}${m.step > 1 ? `, reads in steps of ${m.step} tokens` : ''}; ` +
    `${rules.writeTtl === null ? 'no write premium' : `writes at each model's ${rules.writeTtl === '5m' ? '5-minute' : '1-hour'} write price`}, reads at its read price`
  );
}

const BEST_EFFORT =
  ' Its hits are best-effort: "cost (cached)" reads at every call that could, the least the calls could cost, and "cost" is the most; ' +
  "the TTL is the longest gap after which a transcript's record shows a read (never below the one above), and each transcript's " +
  '`bestEffort` in simulate.json gives how many of its recorded calls within it read the cache.';

/** How "cost (cached)" was billed: each cache model's rules and prices. */
function cacheNote(r: SimulationReport): string[] {
  const c = r.cache;
  if (!c) return [];
  const lines = [
    `"cost (cached)" bills each call as the provider's prompt cache would (${c.chosenBy === 'flag' ? '`--cache`' : "each transcript's cache chosen by its source"}):`,
  ];
  for (const [name, m] of Object.entries(c.models) as [CacheModelName, NonNullable<(typeof c.models)[CacheModelName]>][]) {
    lines.push(
      `- \`${name}\` (${int(m.transcripts)} transcripts): ${CACHE_RULES[name].label}; ${cacheRulesText(CACHE_RULES[name], m)}.${CACHE_RULES[name].bestEffort ? BEST_EFFORT : ''}`,
    );
  }
  lines.push(
    '',
    `Calls are timed by the transcripts' timestamps; ${int(c.untimedTranscripts)} transcripts without any are spaced ${c.callGapSeconds} s apart.`,
  );
  return lines;
}

/** The policies' table; a "compaction calls" column when a policy's compactions asked a model. */
function policiesTable(r: SimulationReport): string[] {
  const withCalls = r.policies.some((x) => x.compactionCalls !== undefined);
  const withHindsight = r.policies.some((x) => x.hindsight !== undefined);
  const withRegret = r.policies.some((x) => x.regret !== undefined);
  const noneCost = r.policies[0].cost.withCache;
  const head = [
    'policy',
    'calls',
    'input billed',
    'vs none',
    'compactions',
    'micro',
    'peak prompt',
    'calls >= hard limit',
    'calls > window',
    'stuck',
    ...(withHindsight ? ['hindsight'] : []),
    ...(withCalls ? ['compaction calls'] : []),
    'cost',
    'cost (cached)',
    'vs none (cached)',
    ...(withRegret ? ['regret'] : []),
  ];
  return markdownTable(
    head,
    r.policies.map((x) => [
      x.name,
      int(x.calls),
      int(x.billedInput),
      x.name === 'none' ? NO_VALUE : change(-x.reductionVsNone),
      int(x.compactions),
      int(x.microCompactions),
      int(x.peakPrompt),
      int(x.callsOverHardLimit),
      int(x.callsOverWindow),
      int(x.stuckTranscripts),
      ...(withHindsight ? [x.hindsight ? retained(x.hindsight.overall) : NO_VALUE] : []),
      ...(withCalls ? [x.compactionCalls ? compactionCallsText(x.compactionCalls, usd) : NO_VALUE] : []),
      usd(x.cost.withoutCache),
      usd(x.cost.withCache),
      x.name === 'none' || noneCost === 0 ? '–' : change(x.cost.withCache / noneCost - 1),
      ...(withRegret ? [x.regret ? usd(x.regret.total) : '–'] : []),
    ]),
    `l${'r'.repeat(head.length - 1)}`,
  );
}

/** `optimal@R`'s planned input against its bound over the transcripts. */
function frontierNote(x: PolicyTotals): string {
  const f = x.frontier;
  if (!f) return '';
  const gap = f.bound > 0 ? ratio(f.inputCost / f.bound) : NO_VALUE;
  return `; planned input ${usd(f.inputCost)} against a bound of ${usd(f.bound)} (${gap}), recall ${pct(f.floor)} met in ${f.feasible} of ${f.transcripts} transcripts`;
}

/** Each policy's cost above the hindsight-optimal schedule's, split by cause. */
function regretSection(r: SimulationReport): string[] {
  const rows = r.policies.filter((x): x is PolicyTotals & Required<Pick<PolicyTotals, 'regret'>> => x.regret !== undefined);
  const floor = r.policies.find((x) => x.regret === undefined && x.name !== 'none' && rows.length > 0);
  if (rows.length === 0 || !floor) return [];
  return [
    '',
    `## Regret against \`${floor.name}\``,
    '',
    `\`${floor.name}\` is the hindsight-optimal schedule: with the whole transcript known, the clears and compactions that fit ` +
      `every prompt in the window at the least cost with caching (${usd(floor.cost.withCache)} here). Each policy's regret is its ` +
      'cost with caching above it, in US dollars: the rewrites a gap over the TTL forced and the rewrites its own edits caused ' +
      "(each above the floor's), its compaction or summary calls, and the rest: stale tokens read at every call and the rewrites " +
      'the cache rules forced otherwise.',
    '',
    ...markdownTable(
      ['policy', 'regret', 'cold rewrites', 'edit rewrites', 'compaction calls', 'carried'],
      rows.map((x) => [
        x.name,
        usd(x.regret.total),
        usd(x.regret.coldRewrites),
        usd(x.regret.editRewrites),
        usd(x.regret.compactionCalls),
        usd(x.regret.carried),
      ]),
      'lrrrrr',
    ),
  ];
}

/** What the "compaction calls" column holds, when there is one. */
function compactionCallsNote(r: SimulationReport): string[] {
  const rows = r.policies.filter((x) => x.compactionCalls !== undefined);
  if (rows.length === 0) return [];
  return [
    '',
    '"compaction calls": what the compactions themselves cost, in US dollars (number of model calls), included in both costs: ' +
      "each summary's prompt and answer" +
      (r.compactionPricing
        ? `, our LLM steps' (${r.compactionPricing.model}) at $${r.compactionPricing.inPerMillion} / $${r.compactionPricing.outPerMillion} per million prompt / answer tokens${r.compactionPricing.batch ? ' (Batch API price)' : ''}`
        : '') +
      "; the source's own summaries (`source`) at the prices of the model that answered the call after the point, their prompt being the context before it.",
    ...rows.map((x) => {
      const c = x.compactionCalls as NonNullable<PolicyTotals['compactionCalls']>;
      const own = c.inOwnTranscripts
        ? `; besides, ${int(c.inOwnTranscripts.calls)} (${usd(c.inOwnTranscripts.cost)}) counted in the replays of their own transcripts (the compaction agents' files among the inputs)`
        : '';
      const replaced = c.replacedInOwnTranscripts
        ? `; the source's ${int(c.replacedInOwnTranscripts.calls)} summary calls (${usd(c.replacedInOwnTranscripts.cost)} as their own transcripts, the compaction agents' files among the inputs, replay them) not billed, this policy's compactions taking their place`
        : '';
      return `- \`${x.name}\`: ${int(c.calls)} calls, ${int(c.input)} prompt and ${int(c.output)} answer tokens, ${usd(c.cost)}${own}${replaced}.`;
    }),
  ];
}

/** simulate.md: the policies table, the recorded-usage comparison when there is one, and how to read them. */
export function renderSimulation(r: SimulationReport): string {
  const p = r.prices;
  const out: string[] = [
    '# tcompact simulate',
    '',
    `${r.transcripts} transcripts replayed as agent loops (one model call per assistant message), window ${int(r.window)} tokens, ` +
      `tokenizer ${r.tokenizer}. Hard limit ${r.thresholds.hardLimit} of the window; cooldown ${r.cooldown} calls; ` +
      `stuck after ${r.maxAttempts} compactions in a row that stay above the trigger` +
      (r.basePrompt === 'recorded'
        ? "; each transcript's unrecorded system prompt and tools added to every call, as its first recorded call's input minus the replayed first prompt, and read from the cache at a call where the replay holds none of it while the recorded call read it (another session had just sent it)."
        : r.basePrompt > 0
          ? `; ${int(r.basePrompt)} tokens of unrecorded system prompt and tools added to every call.`
          : '.'),
    ...(r.tokenRatio === undefined
      ? []
      : [
          r.tokenRatio === 'recorded'
            ? "Every count is scaled to the provider's tokens by each transcript's own scale, measured from its recorded usage (the growth of the recorded input between calls over the same messages counted here: a ratio per token and a framing per piece of text, fitted on the intervals the record shows clean)" +
              (r.tokenScaleFallback
                ? `; a transcript with too few clean intervals takes the archive's medians, ratio ${r.tokenScaleFallback.ratio.toFixed(3)} and framing ${r.tokenScaleFallback.framing.toFixed(1)}.`
                : '; 1 without.')
            : `Every count is scaled by ${r.tokenRatio} to the provider's tokens.`,
        ]),
    `Each call is billed at the prices of the model that answered it (see "By model"); a model no price table lists, per million tokens: ` +
      `input $${p.input}, cache write $${p.cacheWrite}, cache read $${p.cached}, output $${p.output}.`,
    '',
    ...policiesTable(r),
    '',
    ...r.policies.map((x) => `- \`${x.name}\`: ${x.summary}${frontierNote(x)}`),
    '',
    ...cacheNote(r),
    ...(r.policies.some((x) => x.hindsight !== undefined)
      ? [
          '',
          '"hindsight": at each compaction a policy made (micro-compaction aside), the facts of before it that the session ' +
            'used again after it (paths read, edited or named again, commands re-run, error lines or their identifiers named ' +
            'again, requests a user correction restates), found in the context the policy left.',
        ]
      : []),
    ...compactionCallsNote(r),
  ];
  out.push(...regretSection(r));
  out.push(...sourcePointsSection(r));
  if (r.llm) {
    const l = r.llm;
    out.push(
      '',
      `LLM steps: model ${l.model}, ${int(l.requests)} requests, ${int(l.promptTokens)} prompt and ${int(l.completionTokens)} completion tokens` +
        `${l.costUsd === null ? '' : `, ${usd(l.costUsd)}`}; ${int(l.fallbacks.count)} compactions fell back to the deterministic steps.`,
    );
  }
  out.push(...byModelSection(r));
  if (r.recorded) out.push(...recordedSection(r.recorded, outputCostOf(r)));
  out.push(...fidelitySection(r.fidelity, r.perTranscript));
  if (r.byFormat) out.push('', ...byGroupSection(r.byFormat, 'source format', { corner: 'policy', groupsAs: 'columns' }));
  if (r.byProject) out.push('', ...byGroupSection(r.byProject, 'project', { corner: 'project', groupsAs: 'rows' }));
  return `${out.join('\n')}\n`;
}

/** The groups side by side (source formats, projects): each policy's cost with caching and its change in input against `none`. */
function byGroupSection(groups: ByGroup, what: string, layout: Parameters<typeof renderGroupMatrix>[3]): string[] {
  const keys = Object.keys(groups);
  const policies = Object.keys(groups[keys[0]].policies);
  return [
    `## By ${what}`,
    '',
    `Cost with caching and input billed against \`none\`, per policy, for the transcripts of each ${what}.`,
    '',
    ...renderGroupMatrix(
      keys.map((key) => ({ key, label: `${key} (${groups[key].transcripts})` })),
      policies,
      (key, name) => {
        const p = groups[key].policies[name];
        return `${usd(p.cost.withCache)}, ${change(-p.reductionVsNone)}`;
      },
      layout,
    ),
  ];
}

/** Each policy's cost by model, the recorded usage's too, and the rates each model was billed at with their source. */
function byModelSection(r: SimulationReport): string[] {
  const models = billedModelNames(r.modelPrices);
  if (!r.modelPrices || models.length === 0) return [];
  const rows = byModelRows(r.policies, r.recorded);
  const withCalls = rows.some((x) => x.compactionCalls > 0);
  return [
    '',
    '## By model',
    '',
    'Each call is billed at the prices of the model that answered it: the model its reply records, else the last one its transcript names, else the defaults as `(no model recorded)`. ' +
      'Cost with caching (calls) by model' +
      (withCalls
        ? "; the compaction calls are billed apart, at their own model's prices, and the models' costs add up to the total without them."
        : "; the models' costs add up to the total."),
    '',
    ...markdownTable(
      ['', ...models, ...(withCalls ? ['compaction calls'] : []), 'total'],
      rows.map((x) => [
        x.label,
        ...models.map((m) => {
          const share = x.byModel[m];
          return share ? `${usd(share.cost.withCache)} (${int(share.calls)})` : NO_VALUE;
        }),
        ...(withCalls ? [x.compactionCalls > 0 ? usd(x.compactionCalls) : NO_VALUE] : []),
        usd(x.total),
      ]),
      `l${'r'.repeat(models.length + (withCalls ? 2 : 1))}`,
    ),
    '',
    'The rates, in US dollars per million tokens, and where they came from: the built-in table (`table`), `--prices FILE` (`file`), ' +
      "or, for a model neither lists, the defaults; a `--price-*` flag given wins over all of them. A replay's cache writes are billed at the rate of its cache's TTL, a record's by the TTL each write was made with.",
    '',
    ...markdownTable(
      ['model', 'source', 'input', 'cache write 5m', 'cache write 1h', 'cache read', 'output'],
      models.map((m) => {
        const use = r.modelPrices![m];
        const x = use.rates;
        return [m, priceSource(use), `$${x.input}`, `$${x.cacheWrite5m}`, `$${x.cacheWrite1h}`, `$${x.cacheRead}`, `$${x.output}`];
      }),
      'llrrrrr',
    ),
  ];
}

/** What the output of a replay's or a record's calls cost, each model's at its output price. */
function outputCostOf(r: SimulationReport): (byModel: Readonly<Record<string, { output?: number; outputTokens?: number }>>) => number {
  return (byModel) => {
    let cost = 0;
    for (const [model, x] of Object.entries(byModel))
      cost += ((x.output ?? x.outputTokens ?? 0) * (r.modelPrices?.[model]?.rates.output ?? r.prices.output)) / 1e6;
    return cost;
  };
}

/** The usage the sources recorded beside the replay of the same transcripts without compaction (and as they compacted). */
function recordedSection(recorded: NonNullable<SimulationReport['recorded']>, outputCost: ReturnType<typeof outputCostOf>): string[] {
  const u = recorded.usage;
  // Input cost with caching: what the cache model decides. Outputs are set apart because Claude Code records the
  // usage of a reply's first stream event, whose output_tokens are not the billed ones.
  const inputCost = (withCache: number, byModel: Parameters<typeof outputCost>[0]) => usd(withCache - outputCost(byModel));
  const replayRow = (label: string, s: NonNullable<typeof recorded.simulatedSource>) => [
    label,
    int(s.calls),
    int(s.billedInput),
    int(s.cachedInput),
    int(s.cacheWrites),
    int(s.billedInput - s.cachedInput - s.cacheWrites),
    int(s.outputTokens),
    int(s.firstPrompt),
    usd(s.cost.withoutCache),
    usd(s.cost.withCache),
    inputCost(s.cost.withCache, s.byModel),
  ];
  return [
    '',
    '## Recorded usage beside the replay',
    '',
    `${recorded.transcripts} transcripts carry the usage their source recorded (Claude Code or Codex \`usage\`), their own compactions and caching included.`,
    '',
    ...markdownTable(
      ['', 'calls', 'input', 'cache reads', 'cache writes', 'uncached input', 'output', 'first call input', 'cost', 'cost (cached)', 'input cost (cached)'],
      [
        [
          'recorded',
          int(u.calls),
          int(u.input),
          int(u.cacheRead),
          int(u.cacheCreation),
          int(u.uncachedInput),
          int(u.output),
          int(u.firstCallInput),
          usd(u.cost.withoutCache),
          usd(u.cost.withCache),
          inputCost(u.cost.withCache, u.byModel),
        ],
        replayRow('simulated `none`', recorded.simulatedNone),
        ...(recorded.simulatedSource ? [replayRow('simulated `source`', recorded.simulatedSource)] : []),
      ],
      'lrrrrrrrrrr',
    ),
    '',
    `Of the recorded cache writes, ${int(u.cacheCreation1h)} were made with the 1-hour TTL and are billed at their model's 1-hour write price ` +
      `(Anthropic's: ${CACHE_RULES['anthropic-1h'].writeMultiplier}x the input price), the others at its 5-minute one (${CACHE_RULES['anthropic-5m'].writeMultiplier}x); each model's calls at its own rates (see "By model").`,
    '',
    'The recorded input includes the system prompt and tool definitions the session file does not hold (about the',
    "first call's recorded input minus its simulated prompt, on every call; `--base-prompt N` adds them to the replay)",
    "and is counted by the provider's tokenizer (`--token-ratio recorded` scales the replay's counts to it).",
    '`none` sends every session whole; `source` compacts where the sessions did, so it is the replay to hold against',
    'the record. Its compaction calls are left out here: a source records them apart (Claude Code in its',
    '`agent-acompact-*` subagent files, transcripts of their own). The input cost (cached) leaves out the output:',
    "Claude Code records the usage of a reply's first stream event, whose `output_tokens` are not the billed ones.",
    ...(u.midStreamCalls
      ? [
          '',
          `Output as billed: ${int(u.outputCounted ?? 0)} tokens counted from the replies' content, against ${int(u.output)} recorded, ` +
            `whose usage was logged mid-stream on ${int(u.midStreamCalls)} of ${int(u.calls)} calls. The recorded costs above use the recorded output ` +
            "(as ccusage does); the replays bill these calls' output counted from the replies.",
        ]
      : []),
    ...(recorded.embedded ? embeddedNote(recorded.embedded, u.cost.withCache) : []),
  ];
}

/** The subagent calls the sources embedded beside their transcripts (never replayed): the rest of the recorded bill. */
function embeddedNote(e: NonNullable<NonNullable<SimulationReport['recorded']>['embedded']>, recordedWithCache: number): string[] {
  const own = e.inOwnTranscripts;
  return [
    '',
    `Subagent calls embedded in the sessions' progress records, not replayed: ${int(e.usage.calls)} calls of ${int(e.agents)} subagents ` +
      `without a transcript of their own among the inputs, ${int(e.usage.input)} input tokens (${int(e.usage.cacheRead)} cache reads, ` +
      `${int(e.usage.cacheCreation)} cache writes), ${usd(e.usage.cost.withCache)} with caching; with them the recorded bill is ` +
      `${usd(recordedWithCache + e.usage.cost.withCache)}. ${int(own.calls)} embedded calls of ${int(own.agents)} subagents are counted in their own transcripts above.`,
  ];
}
