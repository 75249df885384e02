import { change, int, mdTable, pct, usd } from './format.js';
import { PROBE_KINDS } from './probes.js';
import { type Tally, recall } from './score.js';
import type { PolicyTotals, SimulationReport } from './simulate-run.js';

const KIND_LABELS: Record<(typeof PROBE_KINDS)[number], string> = {
  artifact: 'artifacts',
  command: 'commands',
  error: 'errors',
  intent: 'intent',
  task: 'open tasks',
};
const cell = (t: Tally) => (t.probes === 0 ? '–' : `${pct(recall(t))} (${t.retained}/${t.probes})`);

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
      'with a summary. Billed input and costs are over whole replays.',
    '',
    mdTable(
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
          ...PROBE_KINDS.map((k) => cell(a.score.byKind[k])),
          cell(a.score.overall),
          recalls.length === 0 ? '–' : pct(recalls.reduce((x, y) => x + y, 0) / recalls.length),
        ];
      }),
      'lrrrrrrrrrrrrr',
    ),
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
      (r.basePrompt > 0 ? `; ${int(r.basePrompt)} tokens of unrecorded system prompt and tools added to every call.` : '.'),
    `Prices per million tokens: input $${p.input}, cache write $${p.cacheWrite}, cache read $${p.cached}, output $${p.output}.`,
    '',
    mdTable(
      [
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
        'cost',
        'cost (cached)',
      ],
      r.policies.map((x) => [
        x.name,
        int(x.calls),
        int(x.billedInput),
        x.name === 'none' ? '–' : change(-x.reductionVsNone),
        int(x.compactions),
        int(x.microCompactions),
        int(x.peakPrompt),
        int(x.callsOverHardLimit),
        int(x.callsOverWindow),
        int(x.stuckTranscripts),
        usd(x.cost.withoutCache),
        usd(x.cost.withCache),
      ]),
      'lrrrrrrrrrrr',
    ),
    '',
    ...r.policies.map((x) => `- \`${x.name}\`: ${x.summary}`),
    '',
    '"cost (cached)" assumes an ideal prefix cache: at each call, the leading messages identical to the previous',
    "call's prompt are cache reads and the rest cache writes; a compaction or micro-compaction that rewrites an early",
    'message turns everything after it into writes.',
  ];
  out.push(...sourcePointsSection(r));
  if (r.llm) {
    const l = r.llm;
    out.push(
      '',
      `LLM steps: model ${l.model}, ${int(l.requests)} requests, ${int(l.promptTokens)} prompt and ${int(l.completionTokens)} completion tokens` +
        `${l.costUsd === null ? '' : `, ${usd(l.costUsd)}`}; ${int(l.fallbacks.count)} compactions fell back to the deterministic steps.`,
    );
  }
  if (r.recorded) {
    const u = r.recorded.usage;
    const s = r.recorded.simulatedNone;
    out.push(
      '',
      '## Recorded usage beside the replay without compaction',
      '',
      `${r.recorded.transcripts} transcripts carry the usage their source recorded (Claude Code or Codex \`usage\`), their own compactions and caching included.`,
      '',
      mdTable(
        ['', 'calls', 'input', 'cache reads', 'cache writes', 'uncached input', 'output', 'first call input', 'cost', 'cost (cached)'],
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
          ],
          [
            'simulated `none`',
            int(s.calls),
            int(s.billedInput),
            int(s.cachedInput),
            int(s.billedInput - s.cachedInput),
            '–',
            int(s.outputTokens),
            int(s.firstPrompt),
            usd(s.cost.withoutCache),
            usd(s.cost.withCache),
          ],
        ],
        'lrrrrrrrrr',
      ),
      '',
      'The recorded input includes the system prompt and tool definitions the session file does not hold (about the',
      "first call's recorded input minus its simulated prompt, on every call; `--base-prompt N` adds them to the replay)",
      "and is counted by the provider's tokenizer.",
    );
  }
  return `${out.join('\n')}\n`;
}
