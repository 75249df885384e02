/**
 * Per-call latency of `ContextManager.check()` as an agent loop calls it: once before each assistant reply, with the
 * prompt so far (what the previous check returned, plus the messages since). The AI SDK's `pruneMessages` runs on the
 * same session's prefixes, one call per reply, for a per-call figure beside it, and so does each runtime adapter.
 */
import { pruneMessages, type ModelMessage } from 'ai';
import { ContextManager } from '../../src/context/context-manager.js';
import type { Message } from '../../src/model/message.js';
import { timestampMs } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { lastUserRequestIndex } from '../../src/model/validity.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.js';
import { ADAPTERS, type AdapterName, replayAdapter } from './adapter-latency.js';

/** The window the manager is given: that of the replay's figures, which the shared corpus's largest session outgrows, so its checks must edit. */
export const CHECK_WINDOW = 128_000;

/** The gap between calls where the session recorded no usable time: well inside the 5-minute cache TTL. */
const DEFAULT_GAP_MS = 10_000;

export interface LatencyFigures {
  /** Calls per replay of the session (its assistant replies). */
  calls: number;
  /** Every timed call: `calls` x the replays. */
  samples: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
}

export interface CheckLatency {
  session: string;
  messages: number;
  /** Tokens of the whole session (o200k_base), against the window. */
  tokens: number;
  window: number;
  check: LatencyFigures;
  prune: LatencyFigures;
  /** Each adapter's whole call (conversion, check, conversion back), with the same options and clock. */
  adapters: { name: AdapterName; figures: LatencyFigures }[];
  /** What the checks returned over one replay, by reason (`none`, `cold`, `pays-off`, `window`). */
  reasons: Record<string, number>;
}

/** The nearest-rank percentile of sorted samples. */
function _percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function _figures(samples: number[], calls: number): LatencyFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { calls, samples: sorted.length, medianMs: _percentile(sorted, 50), p99Ms: _percentile(sorted, 99), maxMs: sorted[sorted.length - 1] };
}

/**
 * The session with the most tokens (o200k_base): the one whose prompt comes nearest the window, so its checks include
 * the edits and the compaction a long session meets, not only the cheap "nothing to do" answers.
 */
export function largestSession(transcripts: readonly Transcript[]): Transcript | undefined {
  const tokenizer = getTokenizer('o200k_base');
  let best: { t: Transcript; tokens: number } | undefined;
  for (const t of transcripts) {
    const tokens = countTranscript(t, tokenizer).total;
    if (best === undefined || tokens > best.tokens) best = { t, tokens };
  }
  return best?.t;
}

/** One replay with a fresh manager (default cache-aware options); returns each check's time and its reason. */
async function _replayChecks(t: Transcript): Promise<{ ms: number[]; reasons: string[] }> {
  const tokenizer = getTokenizer('o200k_base');
  const manager = new ContextManager({ window: CHECK_WINDOW });
  const ms: number[] = [];
  const reasons: string[] = [];
  let prompt: Message[] = [];
  let at = 0;
  for (const m of t.messages) {
    if (m.role === 'assistant') {
      // The session's own clock where it has one (so a long pause finds the cache cold, as it did), never backwards.
      at = Math.max(at + 1, timestampMs(m) ?? at + DEFAULT_GAP_MS);
      // Counting is the caller's, before the call (docs/library.md): untimed.
      const tokens = countTranscript({ id: t.id, messages: prompt }, tokenizer).total;
      const t0 = performance.now();
      const r = await manager.check({ messages: prompt, tokens, at });
      ms.push(performance.now() - t0);
      reasons.push(r.reason);
      prompt = [...r.messages];
    }
    prompt.push(m);
  }
  return { ms, reasons };
}

/** `pruneMessages` on the prompt before each assistant reply, with the peers table's options; conversion untimed. */
function _replayPrunes(t: Transcript): number[] {
  const model = toModelMessages(t.messages);
  // toModelMessages gives one message per canonical message of a known role: the prefix of the first i is a slice.
  const known = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
  const ms: number[] = [];
  let converted = 0;
  t.messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      const prefix: ModelMessage[] = model.slice(0, converted);
      const before = t.messages.slice(0, i);
      const request = lastUserRequestIndex(before);
      const keep = request < 0 ? before.length : before.length - request;
      const t0 = performance.now();
      pruneMessages({ messages: prefix, reasoning: 'before-last-message', toolCalls: `before-last-${keep}-messages`, emptyMessages: 'remove' });
      ms.push(performance.now() - t0);
    }
    if (known.has(m.role)) converted++;
  });
  return ms;
}

/** `replays` timed replays of the session for each side, after one untimed warm-up replay each. */
export async function measureCheckLatency(session: string, t: Transcript, replays: number): Promise<CheckLatency> {
  const warm = await _replayChecks(t);
  _replayPrunes(t);
  const check: number[] = [];
  const prune: number[] = [];
  for (let i = 0; i < replays; i++) {
    check.push(...(await _replayChecks(t)).ms);
    prune.push(..._replayPrunes(t));
  }
  const adapters: CheckLatency['adapters'] = [];
  for (const name of ADAPTERS) {
    await replayAdapter(name, t, CHECK_WINDOW);
    const samples: number[] = [];
    for (let i = 0; i < replays; i++) samples.push(...(await replayAdapter(name, t, CHECK_WINDOW)));
    adapters.push({ name, figures: _figures(samples, warm.ms.length) });
  }
  const reasons: Record<string, number> = {};
  for (const r of warm.reasons) reasons[r] = (reasons[r] ?? 0) + 1;
  return {
    session,
    messages: t.messages.length,
    tokens: countTranscript(t, getTokenizer('o200k_base')).total,
    window: CHECK_WINDOW,
    check: _figures(check, warm.ms.length),
    prune: _figures(prune, warm.ms.length),
    adapters,
    reasons,
  };
}
