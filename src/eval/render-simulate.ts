import { change, int, mdTable, usd } from './format.js';
import type { SimulationReport } from './simulate-run.js';

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
