import type { CompactionHandler, CompactionOutput, CompactionRequest } from '../../context/compaction-handler.js';
import { strategyCompaction, withFocus } from '../../context/strategy-compaction.js';
import { type Message, messageContent } from '../../model/message.js';
import { type ContentPart, contentText } from '../../model/content.js';
import { historyMessage, isSourceSummary, recordedCall } from '../../model/recorded.js';
import { originalOf } from '../../model/turn-reasoning.js';
import { RefSink } from '../../refs/ref-store.js';
import { hindsightProbes, scoreHindsight } from '../../retention/hindsight.js';
import { viewOfMessages } from '../../retention/model-view.js';
import { type Probe, extractProbes } from '../../retention/probes.js';
import { scoreProbes } from '../../retention/score.js';
import { contextTokens } from '../../tokens/breakdown.js';
import { costOfBill } from '../billing/prices.js';
import { replaceByViews } from '../../model/context-views.js';
import type { PointResult, Policy, PolicyEnv, PolicyFigures, PolicyInstance } from './policy.js';
import { type SourcePoint, type SourceRewrite, sourceCompactionPoints } from './source-points.js';

/** The policy that replays the source's own compactions: at each point, the context becomes the source's summary. */
export const SOURCE_OWN = 'source';
/** `source:STRATEGY`: our strategy at the source's compaction points. */
export const SOURCE_PREFIX = 'source:';

const leadingSystem = (messages: readonly Message[]): Message[] => {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role !== 'system' && m.role !== 'developer') break;
    out.push(m);
  }
  return out;
};

/**
 * The source's own compaction, or ours (`strategies`), at exactly the calls where the transcript's source compacted
 * or was asked to (see `sourceCompactionPoints`). Our strategy gets the point's focus as summarize's focus.
 */
export function sourcePolicy(strategies: readonly string[] | 'own'): Policy {
  const name = strategies === 'own' ? SOURCE_OWN : `${SOURCE_PREFIX}${strategies.join('+')}`;
  return {
    name,
    summary:
      strategies === 'own'
        ? "the source's own compactions replayed: at each of its points the context becomes its recorded summary"
        : `${strategies.join(' then ')} at the source's own compaction points (boundaries, /compact, Compact tool), with their focus`,
    requires: strategies === 'own' ? [] : [...strategies],
    ...(strategies === 'own' ? { replaysSource: true } : {}),
    instantiate(env: PolicyEnv): PolicyInstance {
      const transcript = env.transcript;
      const points = transcript ? sourceCompactionPoints(transcript) : [];
      const results: PointResult[] = [];
      const summarizer: PolicyFigures['summarizer'] = strategies === 'own' ? { calls: 0, input: 0, output: 0, cost: 0 } : undefined;
      const figures = () => ({ atPoints: results, ...(summarizer ? { summarizer } : {}) });
      if (!transcript || points.length === 0) return { figures };
      const byCall = new Map(points.map((p) => [p.call, p]));
      const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
      const history = transcript.messages;
      const probesAt = (p: SourcePoint): Probe[] => extractProbes({ messages: history.slice(0, p.callIndex).filter((m) => !isSourceSummary(m)) });
      const hindsightAt = (p: SourcePoint) =>
        hindsightProbes(
          history.slice(0, p.callIndex).filter((m) => !isSourceSummary(m)),
          history.slice(p.callIndex).filter((m) => !isSourceSummary(m)),
        );
      const compact = strategies === 'own' ? ownCompaction(env, history) : ourCompaction(env, strategies);
      return {
        figures,
        async at(call, request) {
          const point = byCall.get(call);
          if (!point) return undefined;
          const out = await compact(point, request);
          const kept = out && out.tokens < request.tokens ? out : undefined;
          const after = kept ? kept.messages : request.messages;
          const result: PointResult = {
            call,
            kinds: point.kinds,
            tokensBefore: request.tokens,
            tokensAfter: kept ? kept.tokens : request.tokens,
            known: strategies !== 'own' || point.summary !== undefined || point.kept !== undefined || point.keptHead !== undefined,
            score: scoreProbes(probesAt(point), viewOfMessages(after), { root }).score,
            hindsight: scoreHindsight(hindsightAt(point), viewOfMessages(after), { root }),
          };
          if (point.opaque) result.opaque = true;
          if (point.focus !== undefined) result.focus = point.focus;
          results.push(result);
          // A truncation's marker (Roo Code's sliding window) is written by no model call.
          if (summarizer && kept && point.summary && !point.kinds.includes('truncation')) {
            // The session's model at the point: the one that answers the call after it.
            const prices = env.pricesAt(point.callIndex);
            summarizer.calls++;
            const call = point.summaryCall;
            if (call) {
              // As recorded: the compaction agent sends the session's history, which it reads from the cache. Its
              // output, logged from the first stream event, can be short of the summary it wrote.
              const input = call.uncached + call.written + call.read;
              const output = Math.max(call.output, contextTokens([point.summary], undefined, env.tokenizer));
              const cost = costOfBill({ input, cachedRead: call.read, cacheWrites: call.written, output }, prices).withCache;
              summarizer.input += input;
              summarizer.output += output;
              summarizer.cost += cost;
              const logger = point.summaryCallTranscriptId;
              if (logger !== undefined) {
                const apart = ((summarizer.loggedApart ??= {})[logger] ??= { calls: 0, input: 0, output: 0, cost: 0 });
                apart.calls++;
                apart.input += input;
                apart.output += output;
                apart.cost += cost;
              }
            } else {
              const output = contextTokens([point.summary], undefined, env.tokenizer);
              summarizer.input += request.tokens;
              summarizer.output += output;
              summarizer.cost += (request.tokens * prices.input + output * prices.output) / 1e6;
            }
          }
          return kept;
        },
      };
    },
  };
}

type PointCompaction = (point: SourcePoint, request: CompactionRequest) => CompactionOutput | undefined | Promise<CompactionOutput | undefined>;

/**
 * The source's own: its recorded summary (or the history it kept, Codex's replacement history) in place of everything
 * before the point; what came after the point stays, and with pi also what it kept before it (from `keptFrom`). The system and developer messages ahead stay unless what the
 * source kept holds them already (Codex's replacement history keeps the developer message): nothing is sent twice.
 */
function ownCompaction(env: PolicyEnv, history: readonly Message[]): PointCompaction {
  // The replay's prompts hold replies as later prompts hold them (historyMessage): both objects map to the index.
  const indexOf = new Map<Message, number>();
  for (const [i, m] of history.entries()) {
    indexOf.set(m, i);
    const view = historyMessage(m);
    if (view) indexOf.set(view, i);
  }
  // A rewritten message is the same object at every point that rewrites it alike (a stable prefix for the cache).
  const rewrittenAt = new Map<Message, number>();
  const views = new Map<string, Message>();
  const rewrittenView = (m: Message, i: number, rewrites: readonly SourceRewrite[]): Message => {
    const key = `${i}\u0000${JSON.stringify(rewrites)}`;
    let view = views.get(key);
    if (!view) {
      view = withRewrites(m, rewrites);
      views.set(key, view);
      rewrittenAt.set(view, i);
      indexOf.set(view, i);
    }
    return view;
  };
  return (point, { messages, tokens }) => {
    if (point.keptHead !== undefined && point.keptFrom !== undefined && !point.summary && !point.kept) {
      const [head, from] = [point.keptHead, point.keptFrom];
      const rewrites = new Map<number, SourceRewrite[]>();
      for (const r of point.rewrites ?? []) rewrites.set(r.index, [...(rewrites.get(r.index) ?? []), r]);
      const { messages: next } = replaceByViews(messages, (m) => {
        const i = indexOf.get(originalOf(m)) ?? -1;
        if (i >= head && i < from) return undefined;
        // Each message as the point sends it: its rewrites in force, else as written (a rewrite may have ended).
        const own = i < 0 ? m : (historyMessage(history[i]) ?? history[i]);
        return rewrites.has(i) ? rewrittenView(own, i, rewrites.get(i)!) : rewrittenAt.has(m) ? own : m;
      });
      return { messages: [...next], tokens: contextTokens(next, env.tools, env.tokenizer) + env.basePrompt };
    }
    const kept = point.kept ?? (point.summary ? [point.summary] : undefined);
    if (!kept) return point.kinds.includes('microcompact') ? clearOldResults(env, messages, tokens, history[point.callIndex]) : undefined;
    // What the source kept: from its first kept message (pi), else from the point on.
    const from = point.kept ? point.index : (point.keptFrom ?? point.index);
    const after = messages.filter((m) => (indexOf.get(originalOf(m)) ?? -1) >= from);
    const held = new Set(kept.map((k) => `${k.role}\u0000${contentText(messageContent(k))}`));
    const lead = leadingSystem(messages).filter((m) => !held.has(`${m.role}\u0000${contentText(messageContent(m))}`));
    // What the source kept ahead of its summary (Roo Code: the first message, and earlier truncation markers).
    const keptHead = point.kept ? undefined : point.keptHead;
    const head =
      keptHead === undefined
        ? []
        : messages.filter((m) => {
            const i = indexOf.get(originalOf(m)) ?? -1;
            return i >= 0 && i < keptHead && !lead.includes(m);
          });
    const next = [...lead, ...head, ...kept, ...after];
    return { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + env.basePrompt };
  };
}

/** What Claude Code's microcompact put in place of an old tool result's content. */
export const CLEARED_RESULT = '[Old tool result content cleared]';

/**
 * A clearing the source did not log (see SourcePointKind `microcompact`): the oldest tool results' contents become
 * Claude Code's marker, one after the other, until the prompt is no larger than the call's recorded one.
 */
function clearOldResults(env: PolicyEnv, messages: readonly Message[], tokens: number, reply: Message): CompactionOutput | undefined {
  const call = recordedCall(reply);
  if (!call) return undefined;
  const target = call.uncached + call.written + call.read;
  const next = [...messages];
  let left = tokens;
  for (let i = 0; i < next.length && left > target; i++) {
    const m = next[i];
    if (m.role !== 'tool' || contentText(messageContent(m)) === CLEARED_RESULT) continue;
    const cleared: Message = { ...m, content: CLEARED_RESULT };
    left -= contextTokens([m], undefined, env.tokenizer) - contextTokens([cleared], undefined, env.tokenizer);
    next[i] = cleared;
  }
  return left < tokens ? { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + env.basePrompt } : undefined;
}

/** Ours: the strategies on the whole context, with the point's focus; one handler per focus. */
function ourCompaction(env: PolicyEnv, strategies: readonly string[]): PointCompaction {
  const refs = new RefSink();
  const handlers = new Map<string | undefined, CompactionHandler>();
  return (point, request) => {
    const focus = point.focus ?? env.focus;
    let handler = handlers.get(focus);
    if (!handler) {
      handler = strategyCompaction({
        strategies,
        tokenizer: env.tokenizer,
        tools: env.tools,
        extraTokens: env.basePrompt,
        refs,
        config: withFocus({ ...env.tail }, focus),
        llm: env.llm,
      });
      handlers.set(focus, handler);
    }
    return handler(request);
  };
}

/** `m` with each rewrite's text in place of its part (`part` -1: the whole content, or a content array's first text). */
function withRewrites(m: Message, rewrites: readonly SourceRewrite[]): Message {
  let content: string | readonly ContentPart[] | null | undefined = messageContent(m);
  for (const r of rewrites) {
    if (typeof content === 'string' || content === null || content === undefined) {
      content = r.text;
      continue;
    }
    const parts = [...content];
    const at = r.part >= 0 ? r.part : parts.findIndex((p) => p.type === 'text');
    if (at >= 0 && at < parts.length) parts[at] = { type: 'text', text: r.text };
    content = parts;
  }
  return { ...m, content } as Message;
}
