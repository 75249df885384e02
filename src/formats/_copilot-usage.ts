import { isObject } from './_items.js';

/** One model's tokens in a `session.shutdown`'s `modelMetrics` (Copilot's `inputTokens` holds the cache reads and writes). */
export interface ModelTokens {
  requests: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/**
 * One run of a session: from `session.start` or `session.resume` to the `session.shutdown` that closes it. Copilot
 * keeps its usage in memory and writes it once per run, at shutdown, counted from zero again after a resume; a run
 * cut short (a crash, `/new`) writes none, and only its replies' `outputTokens` are left of it.
 */
export interface CopilotRun {
  /** The shutdown's `modelMetrics`, by model; absent when the run ended without one. */
  shutdown?: Record<string, ModelTokens>;
  /** The `outputTokens` of its `assistant.message` events, summed. */
  replyOutput: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export const emptyTokens = (): ModelTokens => ({ requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 });

/** A shutdown's `modelMetrics` as tokens by model; models that record nothing are left out. */
export function shutdownMetrics(modelMetrics: unknown): Record<string, ModelTokens> {
  const out: Record<string, ModelTokens> = {};
  if (!isObject(modelMetrics)) return out;
  for (const [model, metric] of Object.entries(modelMetrics)) {
    if (!isObject(metric)) continue;
    const u = isObject(metric.usage) ? metric.usage : {};
    const requests = isObject(metric.requests) ? num(metric.requests.count) : 0;
    const tokens: ModelTokens = {
      requests,
      input: num(u.inputTokens),
      output: num(u.outputTokens),
      cacheRead: num(u.cacheReadTokens),
      cacheWrite: num(u.cacheWriteTokens),
      reasoning: num(u.reasoningTokens),
    };
    if (Object.values(tokens).some((n) => n > 0)) out[model] = tokens;
  }
  return out;
}

function add(into: ModelTokens, from: ModelTokens): void {
  into.requests += from.requests;
  into.input += from.input;
  into.output += from.output;
  into.cacheRead += from.cacheRead;
  into.cacheWrite += from.cacheWrite;
  into.reasoning += from.reasoning;
}

/**
 * The session's usage as metadata: `sessionUsage` (model/recorded.ts `sessionTotals`), the sum over its runs, in
 * Anthropic's names (uncached input is Copilot's `inputTokens` less the cache reads and writes); the output of a run
 * without a shutdown is its replies' `outputTokens`. `copilotUsage` keeps the same by model and the runs as recorded.
 * The model named is the one that took the most input (the totals are priced at one model's rates).
 */
export function sessionUsageMetadata(runs: readonly CopilotRun[]): Record<string, unknown> {
  const byModel = new Map<string, ModelTokens>();
  let unmeteredOutput = 0;
  for (const run of runs) {
    if (!run.shutdown) {
      unmeteredOutput += run.replyOutput;
      continue;
    }
    for (const [model, tokens] of Object.entries(run.shutdown)) {
      const sum = byModel.get(model) ?? emptyTokens();
      add(sum, tokens);
      byModel.set(model, sum);
    }
  }
  const total = emptyTokens();
  for (const tokens of byModel.values()) add(total, tokens);
  total.output += unmeteredOutput;
  const withoutShutdown = runs.filter((r) => !r.shutdown).length;
  const copilotUsage = {
    runs: runs.length,
    runsWithoutShutdown: withoutShutdown,
    ...(unmeteredOutput > 0 ? { outputOfRunsWithoutShutdown: unmeteredOutput } : {}),
    byModel: Object.fromEntries(byModel),
  };
  if (total.input + total.output + total.cacheRead + total.cacheWrite === 0) return { copilotUsage };
  const model = [...byModel].sort((a, b) => b[1].input - a[1].input)[0]?.[0];
  const usage = {
    input_tokens: Math.max(0, total.input - total.cacheRead - total.cacheWrite),
    cache_creation_input_tokens: total.cacheWrite,
    cache_read_input_tokens: total.cacheRead,
    output_tokens: total.output,
  };
  return { sessionUsage: { ...(model !== undefined ? { model } : {}), usage }, copilotUsage };
}
