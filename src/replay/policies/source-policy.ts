import type { CompactionHandler, CompactionOutput, CompactionRequest } from '../../context/compaction-handler.js';
import { strategyCompaction, withFocus } from '../../context/strategy-compaction.js';
import type { Message } from '../../model/message.js';
import { RefSink } from '../../refs/ref-store.js';
import { type HindsightScore, hindsightProbes, scoreHindsight } from '../../retention/hindsight.js';
import { viewOfMessages } from '../../retention/model-view.js';
import type { Policy, PolicyEnv } from './built-in.js';
import { type Probe, extractProbes } from '../../retention/probes.js';
import type { PolicyInstance } from '../replay.js';
import { contextTokens } from '../replay.js';
import { type ProbeScore, scoreProbes } from '../../retention/score.js';
import { type SourcePoint, type SourcePointKind, sourceCompactionPoints } from './source-points.js';
import { isSourceSummary } from '../../model/recorded.js';

/** The policy that replays the source's own compactions: at each point, the context becomes the source's summary. */
export const SOURCE_OWN = 'source';
/** `source:STRATEGY`: our strategy at the source's compaction points. */
export const SOURCE_PREFIX = 'source:';

/** What a policy kept at one of the source's compaction points, scored against the history up to that point. */
export interface PointResult {
  call: number;
  kinds: SourcePointKind[];
  focus?: string;
  /** The prompt before and after the compaction (equal when nothing was compacted). */
  tokensBefore: number;
  tokensAfter: number;
  /**
   * False for the source's own row where the source recorded no summary (a Compact tool or a typed `/compact`
   * without a boundary, Codex's encrypted compaction): what it kept is unknown, and the point is left out of its recall.
   */
  known: boolean;
  /** The source's summary at this point is encrypted (Codex): named as opaque, its content never scored. */
  opaque?: true;
  /** Probes of every message before the call (the source's summaries left out), retained by the context after. */
  score: ProbeScore;
  /** Hindsight probes: the facts of before the call that the session used again after it, retained by the context after. */
  hindsight: HindsightScore;
}

/** A policy instance that records what it kept at each of the source's compaction points. */
export interface SourcePolicyInstance extends PolicyInstance {
  points: PointResult[];
  /**
   * `source` only: the source's own summarizer calls, one per summary put in place: its prompt (the context before
   * the point) and its answer (the summary), in tokens.
   */
  summarizer?: { calls: number; input: number; output: number };
}

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
    instantiate(env: PolicyEnv): SourcePolicyInstance {
      const transcript = env.transcript;
      const points = transcript ? sourceCompactionPoints(transcript) : [];
      const results: PointResult[] = [];
      const summarizer = strategies === 'own' ? { calls: 0, input: 0, output: 0 } : undefined;
      if (!transcript || points.length === 0) return { points: results, ...(summarizer ? { summarizer } : {}) };
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
        points: results,
        ...(summarizer ? { summarizer } : {}),
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
            known: strategies !== 'own' || point.summary !== undefined || point.kept !== undefined,
            score: scoreProbes(probesAt(point), viewOfMessages(after), { root }).score,
            hindsight: scoreHindsight(hindsightAt(point), viewOfMessages(after), { root }),
          };
          if (point.opaque) result.opaque = true;
          if (point.focus !== undefined) result.focus = point.focus;
          results.push(result);
          if (summarizer && kept && point.summary) {
            summarizer.calls++;
            summarizer.input += request.tokens;
            summarizer.output += contextTokens([point.summary], undefined, env.tokenizer);
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
 * before the point; what came after the point stays.
 */
function ownCompaction(env: PolicyEnv, history: readonly Message[]): PointCompaction {
  const indexOf = new Map(history.map((m, i) => [m, i]));
  return (point, { messages }) => {
    const kept = point.kept ?? (point.summary ? [point.summary] : undefined);
    if (!kept) return undefined;
    const after = messages.filter((m) => (indexOf.get(m) ?? -1) >= point.index);
    const next = [...leadingSystem(messages), ...kept, ...after];
    return { messages: next, tokens: contextTokens(next, env.tools, env.tokenizer) + (env.basePrompt ?? 0) };
  };
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
