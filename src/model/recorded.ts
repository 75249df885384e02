import type { Message } from './message.js';
import type { Transcript } from './transcript.js';

/**
 * Accessors for what the format readers record on messages beside the OpenAI fields (declared in message.ts):
 * when a message was logged, which model answered, the provider's usage of the call, and the marks of a source's own
 * compaction summary and of client-added text.
 */

/** The summary a source put in place of the history at its own compaction (`is_compact_summary`). */
export const isSourceSummary = (m: Message): boolean => m.is_compact_summary === true;

/**
 * A request the source made but its record does not price (Codex: a response cut by `turn_aborted` before any
 * `token_count`): its items stay in the history that later requests sent, but it is no billed call.
 */
export const isUnpricedRequest = (m: Message): boolean => m.unpriced_request === true;

/** Text the client added rather than the user typed (`is_meta`; `isMeta` as Claude Code logs it). */
export const isClientText = (m: Message): boolean => m.is_meta === true || m.isMeta === true;

/** The message is the first after a resume that rebuilt the prompt from the chain (`resume_rebuild`, set by the reader). */
export const followsResume = (m: Message): boolean => m.resume_rebuild === true;

/**
 * The tool calls a resume's rebuilt prompt left out (`resume_left_out`, on the message that `followsResume`): ids of
 * `tool_use` blocks whose results sat off the new leaf's `parentUuid` chain. From that message on, no prompt holds
 * them or their results.
 */
export const resumeLeftOut = (m: Message): readonly string[] =>
  followsResume(m) && Array.isArray(m.resume_left_out) ? m.resume_left_out.filter((id): id is string => typeof id === 'string') : [];

/** When the source logged the message, in epoch milliseconds; undefined when it recorded no valid time. */
export function timestampMs(m: Message): number | undefined {
  const t = m.timestamp;
  const ms = typeof t === 'string' ? Date.parse(t) : typeof t === 'number' ? t : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** A reply the client wrote with no model call behind it (`is_synthetic`): no call, no usage, no model. */
export const isSyntheticReply = (m: Message): boolean => m.role === 'assistant' && m.is_synthetic === true;

/**
 * An assistant message that is a model call of its own: every reply but a synthetic one, the rest of a reply whose
 * records another branch split (`continues_call`: the same request), a reply of the session a subagent's file
 * logged again (`logged_by_session`: the session's call), and a request the record does not price (`isUnpricedRequest`:
 * its items stay in later prompts, but it is no billed call).
 */
export const isModelCall = (m: Message): boolean =>
  m.role === 'assistant' && m.is_synthetic !== true && m.continues_call !== true && m.logged_by_session !== true && !isUnpricedRequest(m);

/**
 * Whether a reply's recorded usage is a snapshot taken mid-stream, so its `output_tokens` is not the billed output:
 * Claude Code logs the usage of a reply's first stream event (anthropics/claude-code#27361, #22671), except where it
 * logged a `stop_reason` (`usage_final`). Other sources record the final usage.
 */
export function usageIsMidStream(transcript: Transcript, m: Message): boolean {
  const source = transcript.metadata?.source;
  const format = isRecord(source) ? source.format : undefined;
  return format === 'claude-code' && recordedCall(m) !== undefined && m.usage_final !== true;
}

/** The branch of a forked session a message is on (`thread`): 0 for the first branch and for every unforked session. */
export const callThread = (m: Message): number => (typeof m.thread === 'number' ? m.thread : 0);

/** The fork a message is the last shared message before (`branch_point`), if any. */
export const branchPoint = (m: Message): number | undefined => (typeof m.branch_point === 'number' ? m.branch_point : undefined);

/** The fork whose branch this message starts (`branch_from`), if any: its history is everything up to that branch point. */
export const branchFrom = (m: Message): number | undefined => (typeof m.branch_from === 'number' ? m.branch_from : undefined);

/** The model that answered, as recorded on the reply (none on a synthetic reply). */
export const answeringModel = (m: Message): string | undefined => (typeof m.model === 'string' && !isSyntheticReply(m) ? m.model : undefined);

/** One recorded model call's tokens, whichever provider's field names its usage record uses. */
export interface RecordedCall {
  /** Input neither written to nor read from the cache. */
  uncached: number;
  /** Input written to the cache. */
  written: number;
  /** Of `written`, tokens written with the 1-hour TTL (Anthropic's `cache_creation.ephemeral_1h_input_tokens`). */
  written1h: number;
  /** Input read from the cache. */
  read: number;
  output: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** How a client trims a tool output before the output enters the model's history: to `limit` tokens or bytes. */
export interface TruncationPolicy {
  mode: 'tokens' | 'bytes';
  limit: number;
}

/**
 * The truncation policy in force for a tool message (`truncation_policy`: Codex's `turn_context.truncation_policy`,
 * which its reader puts on each tool output), or undefined where none was recorded or it is not one tcompact knows.
 */
export function truncationPolicy(m: Message): TruncationPolicy | undefined {
  const p = m.truncation_policy;
  if (!isRecord(p) || (p.mode !== 'tokens' && p.mode !== 'bytes') || typeof p.limit !== 'number' || !(p.limit >= 0)) return undefined;
  return { mode: p.mode, limit: p.limit };
}

/**
 * The usage a reply recorded, or undefined without one (a synthetic reply's zeros are no call's): Anthropic's (`input_tokens` uncached, plus
 * `cache_creation_input_tokens` and `cache_read_input_tokens`) or OpenAI's (`input_tokens` in total, of which
 * `cached_input_tokens` were read).
 */
export function recordedCall(m: Message): RecordedCall | undefined {
  return isRecord(m.usage) && !isSyntheticReply(m) ? callOfUsage(m.usage) : undefined;
}

/** A usage record's tokens, in Anthropic's or OpenAI's field names (see {@link recordedCall}). */
export function callOfUsage(u: Record<string, unknown>): RecordedCall {
  const openAIStyle = 'cached_input_tokens' in u && !('cache_read_input_tokens' in u);
  const read = num(openAIStyle ? u.cached_input_tokens : u.cache_read_input_tokens);
  const written = num(u.cache_creation_input_tokens);
  return {
    uncached: openAIStyle ? Math.max(0, num(u.input_tokens) - read) : num(u.input_tokens),
    written,
    written1h: isRecord(u.cache_creation) ? Math.min(written, num(u.cache_creation.ephemeral_1h_input_tokens)) : 0,
    read,
    output: num(u.output_tokens),
  };
}

/**
 * Content the provider had but the log does not hold, which the message's counted tokens therefore miss: thinking
 * logged without its text (`thinking_blocks_without_text`) or encrypted (`redacted_thinking_blocks`), blocks with no
 * canonical equivalent (`unmapped_blocks`), a round trip the client did not log (`unlogged_round_trip`), and tool definitions a tool search loaded (a `tool_reference` block in a
 * tool result: the provider puts the tool's definition in its place).
 */
export function holdsUnloggedContent(m: Message): boolean {
  if (m.unlogged_round_trip === true) return true;
  if (num(m.thinking_blocks_without_text) > 0 || num(m.redacted_thinking_blocks) > 0) return true;
  if (Array.isArray(m.unmapped_blocks) && m.unmapped_blocks.length > 0) return true;
  return m.role === 'tool' && Array.isArray(m.content) && m.content.some(isToolReference);
}

const isToolReference = (part: unknown): boolean =>
  isRecord(part) && part.type === 'text' && typeof part.text === 'string' && part.text.startsWith('{"type":"tool_reference"');

/**
 * Usage a source records only as totals for a whole session, never call by call (Factory Droid's `settings.json`):
 * `metadata.sessionUsage {model?, usage}`, the usage in Anthropic's or OpenAI's field names. These are never spread
 * over the replies: reports show them as a session's totals, and the replay's fidelity says its calls are not recorded
 * one by one.
 */
export interface SessionTotals {
  model?: string;
  /** The session's tokens, as one {@link RecordedCall} would hold them (the number of calls is not recorded). */
  tokens: RecordedCall;
  /** Thinking tokens recorded apart from the output, when the source does (Droid's `thinkingTokens`). */
  thinking: number;
}

/** The session totals a transcript's source recorded in place of per-call usage, or undefined. */
export function sessionTotals(transcript: Transcript): SessionTotals | undefined {
  const recorded = transcript.metadata?.sessionUsage;
  if (!isRecord(recorded) || !isRecord(recorded.usage)) return undefined;
  return {
    ...(typeof recorded.model === 'string' ? { model: recorded.model } : {}),
    tokens: callOfUsage(recorded.usage),
    thinking: num(recorded.usage.thinking_tokens),
  };
}

/** One subagent's calls that a session logged inside its own file (Claude Code's `agent_progress` records). */
export interface EmbeddedAgentCalls {
  agentId: string;
  /** The id of the transcript the subagent's own file becomes, when the reader knows it. */
  transcriptId?: string;
  /** One usage record per request, in the provider's field names, with the model that answered when recorded. */
  calls: { model?: string; usage: Record<string, unknown> }[];
}

/** The subagent calls a transcript's source embedded beside its messages (`metadata.embeddedCalls`), by subagent. */
export function embeddedCalls(metadata: Record<string, unknown> | undefined): EmbeddedAgentCalls[] {
  const listed = metadata?.embeddedCalls;
  if (!Array.isArray(listed)) return [];
  const out: EmbeddedAgentCalls[] = [];
  for (const agent of listed) {
    if (!isRecord(agent) || typeof agent.agentId !== 'string' || !Array.isArray(agent.calls)) continue;
    const calls = agent.calls.flatMap((c) =>
      isRecord(c) && isRecord(c.usage) ? [{ ...(typeof c.model === 'string' ? { model: c.model } : {}), usage: c.usage }] : [],
    );
    out.push({ agentId: agent.agentId, ...(typeof agent.transcriptId === 'string' ? { transcriptId: agent.transcriptId } : {}), calls });
  }
  return out;
}

/**
 * A source's own compaction as its reader lists it in `metadata.compactions`: indices into the transcript's messages
 * (the boundary, the summary, the first message kept, a replacement history's range) and what the source recorded of
 * it. Every field is as the reader wrote it; a reader writes only those it knows.
 */
export interface CompactionRecord {
  index?: unknown;
  boundaryIndex?: unknown;
  summaryIndex?: unknown;
  replacementFrom?: unknown;
  replacementTo?: unknown;
  /** The first message of the history kept after the summary (pi's `firstKeptEntryId`), or after a deleted range. */
  keptFromIndex?: unknown;
  /**
   * A range deleted from what is sent, no summary in its place (Cline's truncation): the messages before
   * `keptHeadTo` stay, then those from `keptFromIndex` on. A summary record may keep a head too (Roo Code: the first
   * message before its summary), and place itself after its summary with `index` (the request it applies to); with
   * `truncation` it is a marker no model call wrote (Roo Code's sliding window).
   */
  truncation?: unknown;
  keptHeadTo?: unknown;
  /**
   * Texts the source sent in place of parts of kept messages (Cline's `context_history.json`), each
   * `{index, part, text}` (`part` -1: the whole content) or `{callId, text}` for a tool result.
   */
  rewrites?: unknown;
  trigger?: unknown;
  preTokens?: unknown;
  encrypted?: unknown;
  encryptedSummary?: unknown;
  replacementHistoryItems?: unknown;
  /** The source started the context over empty there (Kimi CLI's `/clear`): an empty replacement history. */
  cleared?: unknown;
  /** The usage record of the call that wrote the summary, where the source logged it (Claude Code's compaction agent). */
  summaryUsage?: unknown;
  /** The transcript that logs that call as its own, when the source logged it in a file apart (the compaction agent's). */
  summaryTranscriptId?: unknown;
}

/** The compactions the reader listed for the transcript, each an object; none when it listed none. */
export function compactionRecords(transcript: Transcript): CompactionRecord[] {
  const entries = transcript.metadata?.compactions;
  return Array.isArray(entries) ? entries.filter(isRecord) : [];
}

/**
 * The message as later prompts hold it: undefined for a reply the client retried (`retried`: its prompt was sent again
 * without it), the reply without its reasoning when the client never sends that back (`reasoning_not_resent`), else
 * the message itself.
 */
export function historyMessage(m: Message): Message | undefined {
  if (m.role !== 'assistant') return m;
  if (m.retried === true) return undefined;
  if (m.reasoning_not_resent !== true || m.reasoning_content === undefined) return m;
  let view = historyViews.get(m);
  if (!view) {
    const { reasoning_content: _thoughts, ...rest } = m;
    historyViews.set(m, (view = rest as Message));
  }
  return view;
}

const historyViews = new WeakMap<Message, Message>();

/**
 * The output tokens a reply's call is billed: its usage record's when the logged reasoning is a summary of what the
 * provider billed (`reasoning_not_resent`), else undefined (count the reply).
 */
export function recordedOutputOf(m: Message): number | undefined {
  if (m.role !== 'assistant' || m.reasoning_not_resent !== true) return undefined;
  return recordedCall(m)?.output;
}
