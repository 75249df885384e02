import type { CompactionOutput, CompactionRequest, CompactionHandler } from '../../context/compaction-handler.js';
import type { ContextManager } from '../../context/context-manager.js';
import type { LlmSession } from '../../llm/session.js';
import type { ToolDef, Transcript } from '../../model/transcript.js';
import type { HindsightProbe, HindsightScore } from '../../retention/hindsight.js';
import type { ProbeScore } from '../../retention/score.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { CacheRules } from '../../provider/cache-rules.js';
import type { Prices } from '../billing/prices.js';
import type { SourcePointKind } from './source-points.js';

/** The protected tail's three parts, as in the compact config. */
export interface TailOptions {
  keepLast?: number;
  keepMessages?: number;
  keepResults?: number;
}

/** What a policy needs to make its handlers for one transcript. */
export interface PolicyEnv {
  tokenizer: Tokenizer;
  window: number;
  tools?: ToolDef[];
  /** Tokens every prompt carries besides messages and tools (see ReplayLoopOptions.basePrompt). */
  basePrompt: number;
  /** Checks after each compaction during which none is attempted. */
  cooldown: number;
  /** Failed compactions in a row before the run is stuck. */
  maxAttempts: number;
  /** The model of the policies' LLM steps (`summarize@0.9`); without it such a policy is refused. @default none */
  llm?: LlmSession;
  /** summarize's focus in the policies' pipelines (`--focus`). @default none */
  focus?: string;
  /** The transcript being replayed (the `source` policies read its compaction points). */
  transcript?: Transcript;
  /** The protected tail of the strategies' pipelines (`--keep-last`, `--keep-messages`, `--keep-results`). @default the strategies' defaults */
  tail?: TailOptions;
  /** The prompt cache that bills the replay, and the prices of each call: what a policy that plans for the bill weighs. */
  cache: CacheRules;
  /** The prices of the call that answers the message at this index (its model's; see billing/cache-choice.ts). */
  pricesAt: (messageIndex: number) => Prices;
  /** Seconds between calls of a transcript without timestamps. */
  callGapSeconds: number;
  /** Tokens of the base prefix warm from outside the conversation at the reply at this message index (see ReplayLoopOptions). @default none */
  warmBase?: (messageIndex: number) => number;
  /** The hindsight probes of an edit before the message at this index, as the replay scores them (shared, computed once each). @default computed by the policy */
  hindsightAt?: (messageIndex: number) => HindsightProbe[];
}

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

/** `optimal@R`'s plan of one transcript (see optimal/frontier.ts): the schedule it found, and the bound at its floor. */
export interface FrontierFigures {
  floor: number;
  /** The schedule's recall meets the floor (else it is the one that keeps most). */
  feasible: boolean;
  /** Its input cost with caching as planned, in US dollars, and its calls over the window. */
  inputCost: number;
  overWindow: number;
  /** No schedule of the same edits meeting the floor, with no more calls over the window, costs less input than this. */
  bound: number;
  /** Facts needed again at its edits, and kept. */
  probes: number;
  retained: number;
  /** The relaxed optima it evaluated: price per fact lost λ, and the least of cost + penalties. */
  points: { lambda: number; relaxed: number }[];
}

/** The figures a policy keeps of its own beside the replay's, read once its replay ended. */
export interface PolicyFigures {
  /** `optimal@R`: its plan and bound. */
  frontier?: FrontierFigures;
  /** What it kept at each of the source's compaction points (the `source` policies). */
  atPoints?: PointResult[];
  /**
   * Model calls its compactions made outside the LLM session, in tokens: the source's own summarizer (`source`), one
   * call per summary put in place, its prompt the context before the point and its answer the summary, priced in US
   * dollars at the prices of the model that answers the call after the point. Of these, `loggedApart` lists those a
   * transcript of their own logs (Claude Code's compaction agent's file), by that transcript's id.
   */
  summarizer?: CallTally & { loggedApart?: Record<string, CallTally> };
}

/** Model calls summed: their prompt and answer tokens, and their cost in US dollars. */
export interface CallTally {
  calls: number;
  input: number;
  output: number;
  cost: number;
}

/** A policy made ready for one transcript: fresh state, since a manager counts compactions and cooldowns. */
export interface PolicyInstance {
  /** Runs before every call (micro-compaction); its output replaces the agent's context. */
  micro?: CompactionHandler;
  /**
   * Each change `micro` makes is a compaction point for `onCompaction` (hindsight): a runtime's clearing (Anthropic's
   * context editing, the AI SDK's pruning) is the only compaction such a policy makes. @default false
   */
  microIsCompaction?: boolean;
  /** Decides at every call whether to compact. */
  manager?: ContextManager;
  /**
   * Compaction at chosen calls (the source's own compaction points): asked before call `call` (0-based, in call order,
   * after micro-compaction); returns the new context, or undefined to leave it. Each context it returns counts as a
   * compaction.
   */
  at?: (call: number, request: CompactionRequest) => CompactionOutput | undefined | Promise<CompactionOutput | undefined>;
  /** Its own figures, read after its replay. @default none */
  figures?: () => PolicyFigures;
}

/** A strategy plus its trigger. */
export interface Policy {
  name: string;
  summary: string;
  /** Strategies and presets the policy runs, checked before a replay starts. */
  requires: string[];
  /**
   * The policy replays what the session itself did (`source`): the replay to hold against the record, and the one
   * whose points are the source's own. @default false
   */
  replaysSource?: boolean;
  /** The policy is the floor every other is measured against (`optimal`): reports give the others' regret against it. @default false */
  floor?: boolean;
  /** A fresh instance per transcript (managers and ref sinks hold per-conversation state). */
  instantiate(env: PolicyEnv): PolicyInstance;
}
