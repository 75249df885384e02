import * as z from 'zod';
import type { Message } from '../model/message.js';
import { formatIssues } from '../model/parse.js';
import {
  addAssistantBlock,
  assistantFromBlocks,
  emptyAssistantBlocks,
  isToolResultBlock,
  userTurnMessages,
  type AssistantBlocks,
} from './_anthropic-blocks.js';
import { baseName, errorItem, finishTranscript, isObject, skippedItem } from './_items.js';
import { lineItem, readJsonl } from './_jsonl.js';
import { type BranchMark, findBranches } from './_branches.js';
import { orderByParent } from './_parent-order.js';
import { type CompactionAgentCall, compactionAgentCalls, replyKey, sessionReplyKeys } from './_claude-code-parent.js';
import { attachmentText } from './_claude-code-attachments.js';
import { fileMentions } from './_claude-code-mentions.js';
import { markUnrecordedRequests } from './_claude-code-interrupts.js';
import { UnloggedMicrocompacts } from './_claude-code-microcompact.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`, subagents in
 * `<session>/subagents/agent-<id>.jsonl`): one transcript per file.
 *
 * - Claude Code writes one `assistant` record per content block; records that share `message.id` are one API reply
 *   and become one assistant message (thinking -> `reasoning_content`, text -> `content`, tool_use -> `tool_calls`),
 *   carrying the `model`, the `usage` of the reply's last record (whose `output_tokens` is the latest) and the timestamp.
 *   Claude Code logs the usage of a reply's first stream event (`stop_reason` null), whose `output_tokens` is not what
 *   was billed; a usage record logged with a `stop_reason` is the final one, marked `usage_final`.
 *   Thinking blocks logged without their text (only a signature) are counted in `thinking_blocks_without_text`.
 *   The reply carries the `version` of the client that made the call (`client_version`): what it sent changed with it.
 * - Claude Code 2.1.2 and 2.1.3 cleared old tool results from what they sent without a record; the reply whose call
 *   followed such a clearing, read from the fall of the recorded prompt, is marked `unlogged_microcompact` (see
 *   UnloggedMicrocompacts).
 * - A reply Claude Code wrote itself (`message.model` `<synthetic>`, usage all 0, no `requestId`: "No response
 *   requested." after an interrupted turn, usage-limit notices with `isApiErrorMessage`) is marked `is_synthetic`: it
 *   stays in the conversation, but no model answered it, so it is neither a call nor one of `metadata.models`.
 * - A session running two branches at once can log a reply's records apart, a record of the other branch between
 *   them. The records after the break become a message of their own (merged back, a tool call would no longer sit
 *   right before its result), but the request is one model call: its usage (the latest record's) stays on the first
 *   message, and the later ones carry none, so the request is counted once (`repairs.splitReplies`). A record is of
 *   the same request when it shares `message.id` or `requestId`.
 * - A resume (`--resume`) logs the history again from the resumed leaf's `parentUuid` chain; the copy is dropped as a
 *   re-log, and the first message going on from it is marked `resume_rebuild`, with the parallel calls the chain left
 *   out in `resume_left_out` (see `Resumes`).
 * - `tool_result` blocks of user records become `tool` messages (with `is_error`); other user content becomes a user
 *   message. User content that arrives while a reply is still open (hook reminders between a tool use and its result)
 *   is placed after the reply's tool results, so each result stays right after its call.
 * - Records are taken in file order, which is a topological order of `parentUuid` in every real file (timestamps are
 *   not monotonic and are not used); a record that comes before its parent is moved after it (stable).
 * - A request the user interrupted before any reply was logged, which the next call's cache read shows reached the
 *   provider, is marked on its `[Request interrupted by user]` message (`unrecorded_request`, see
 *   markUnrecordedRequests).
 * - A prompt that names files with `@` lists them in `file_mentions` (see fileMentions): Claude Code sent their content
 *   with it, logged only from 2.1.128 on (as `attachment` records, read as messages).
 * - Compaction: `system/compact_boundary` records and `isCompactSummary` user records are listed in
 *   `metadata.compactions`; the summary stays in the transcript as a user message marked `is_compact_summary`. The
 *   usage of the summary call, which only the compaction agent's own file logs, is listed with its compaction
 *   (`summaryUsage`, see compactionAgentCalls), with the id of the transcript that file becomes
 *   (`summaryTranscriptId`): when it is among the inputs, the call is counted there and not again.
 * - Records that are not conversation (`progress`, `file-history-snapshot`, `queue-operation`, `summary`, other
 *   `system` subtypes...) are skipped items with reason `record:<type>` or `record:system/<subtype>`.
 * - Subagent calls embedded in `progress` records (`data.type: 'agent_progress'`, each with a subagent's message) are
 *   not conversation, but their usage is the session's bill too: each request's usage (once, the latest record's) is
 *   listed by subagent in `metadata.embeddedCalls`, with the id the subagent's own file gets when it is read (the
 *   same calls, when that file is among the inputs).
 */
export async function* readClaudeCode(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const session = new SessionState(file, await sessionReplyKeys(file, options), await compactionAgentCalls(file, options));
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind !== 'value') {
      yield lineItem(entry);
      continue;
    }
    const outcome = session.accept(entry.value, entry.at);
    if (outcome.kind === 'error') yield errorItem(entry.at, 'E_SCHEMA', outcome.message);
    else if (outcome.kind === 'skipped') yield skippedItem(entry.at, outcome.reason);
  }
  yield* session.finish();
}

const Meta = {
  uuid: z.string().optional(),
  parentUuid: z.string().nullable().optional(),
  timestamp: z.string().optional(),
};
const UserRecord = z.looseObject({
  ...Meta,
  type: z.literal('user'),
  message: z.looseObject({ content: z.union([z.string(), z.array(z.unknown())]) }),
});
const AssistantRecord = z.looseObject({
  ...Meta,
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    content: z.array(z.unknown()),
    usage: z.record(z.string(), z.unknown()).optional(),
  }),
});
const BoundaryRecord = z.looseObject({ ...Meta, type: z.literal('system'), subtype: z.literal('compact_boundary') });

type UserRec = z.infer<typeof UserRecord>;
type AssistantRec = z.infer<typeof AssistantRecord>;
type BoundaryRec = z.infer<typeof BoundaryRecord>;
type ConversationRec = UserRec | AssistantRec | BoundaryRec;

type Accepted = { kind: 'kept' } | { kind: 'skipped'; reason: string } | { kind: 'error'; message: string };

/** One compaction Claude Code made: where its summary message sits and what the boundary record said. */
interface ClaudeCodeCompaction {
  /** Index of the `is_compact_summary` user message in `messages`, when the summary was recorded. */
  summaryIndex?: number;
  /** Index of the first message after the boundary record, when the boundary was recorded. */
  boundaryIndex?: number;
  trigger?: string;
  preTokens?: number;
  /** The usage of the summary call, as the compaction agent's own file logged it, and the model that answered it. */
  summaryUsage?: Record<string, unknown>;
  summaryModel?: string;
  /** The transcript the compaction agent's file becomes, which counts that call as its own when it is read too. */
  summaryTranscriptId?: string;
  boundaryUuid?: string;
  logicalParentUuid?: string;
  timestamp?: string;
}

class SessionState {
  private readonly records: { at: SourcePosition; record: ConversationRec }[] = [];
  /** parentUuid of every record with a uuid, conversation or not, to follow parent chains through skipped records. */
  private readonly parents = new Map<string, string | null>();
  private readonly subagents = new Map<string, string | undefined>();
  private readonly embedded = new EmbeddedCalls();
  private readonly meta: {
    sessionIds: string[];
    cwd?: string;
    gitBranch?: string;
    versions: string[];
    slug?: string;
    agentId?: string;
    isSidechain?: boolean;
  } = {
    sessionIds: [],
    versions: [],
  };

  constructor(
    private readonly file: string,
    /** Reply keys the session's own file logs, when this is a subagent's file (see sessionReplyKeys). */
    private readonly sessionReplies: ReadonlySet<string>,
    /** The summary calls its compaction agents logged, when this is a session's own file (see compactionAgentCalls). */
    private readonly summaryCalls: readonly CompactionAgentCall[] = [],
  ) {}

  accept(value: unknown, at: SourcePosition): Accepted {
    if (!isObject(value) || typeof value.type !== 'string')
      return { kind: 'error', message: 'type: a Claude Code record must be an object with a string "type"' };
    if (typeof value.uuid === 'string') this.parents.set(value.uuid, typeof value.parentUuid === 'string' ? value.parentUuid : null);
    this.noteSubagentLink(value);
    this.embedded.note(value);
    const type = value.type;
    if (type === 'system' && value.subtype === 'compact_boundary') return this.keep(BoundaryRecord, value, at);
    if (type === 'user') return this.keep(UserRecord, value, at);
    if (type === 'attachment') {
      // What Claude Code adds to the next request (see attachmentText): a client-added user message.
      const sent = attachmentText(value.attachment);
      if (sent)
        return this.keep(UserRecord, { ...value, type: 'user', isMeta: true, attachmentType: sent.type, message: { role: 'user', content: sent.text } }, at);
    }
    if (type === 'assistant') return this.keep(AssistantRecord, value, at);
    if (type === 'system') return { kind: 'skipped', reason: `record:system/${typeof value.subtype === 'string' ? value.subtype : 'unknown'}` };
    return { kind: 'skipped', reason: `record:${type}` };
  }

  private keep(schema: z.ZodType<ConversationRec>, value: Record<string, unknown>, at: SourcePosition): Accepted {
    const parsed = schema.safeParse(value);
    if (!parsed.success) return { kind: 'error', message: formatIssues(parsed.error.issues) };
    this.noteMeta(value);
    this.records.push({ at, record: parsed.data });
    return { kind: 'kept' };
  }

  private noteMeta(r: Record<string, unknown>): void {
    const m = this.meta;
    if (typeof r.sessionId === 'string' && !m.sessionIds.includes(r.sessionId)) m.sessionIds.push(r.sessionId);
    if (typeof r.version === 'string' && !m.versions.includes(r.version)) m.versions.push(r.version);
    if (m.cwd === undefined && typeof r.cwd === 'string') m.cwd = r.cwd;
    if (m.gitBranch === undefined && typeof r.gitBranch === 'string' && r.gitBranch !== '') m.gitBranch = r.gitBranch;
    if (m.slug === undefined && typeof r.slug === 'string') m.slug = r.slug;
    if (m.agentId === undefined && typeof r.agentId === 'string') m.agentId = r.agentId;
    if (m.isSidechain === undefined && typeof r.isSidechain === 'boolean') m.isSidechain = r.isSidechain;
  }

  /** Subagents this session started: `agent_progress` records and Task results name the agent and the tool use. */
  private noteSubagentLink(r: Record<string, unknown>): void {
    if (r.type === 'progress' && isObject(r.data) && r.data.type === 'agent_progress' && typeof r.data.agentId === 'string') {
      const toolUseId = typeof r.parentToolUseID === 'string' ? r.parentToolUseID : undefined;
      if (!this.subagents.has(r.data.agentId) || this.subagents.get(r.data.agentId) === undefined) this.subagents.set(r.data.agentId, toolUseId);
    }
    if (
      r.type === 'user' &&
      isObject(r.toolUseResult) &&
      typeof r.toolUseResult.agentId === 'string' &&
      isObject(r.message) &&
      Array.isArray(r.message.content)
    ) {
      const block = r.message.content.find(isToolResultBlock);
      if (block && this.subagents.get(r.toolUseResult.agentId) === undefined) this.subagents.set(r.toolUseResult.agentId, block.tool_use_id);
    }
  }

  *finish(): Generator<InputItem> {
    if (this.records.length === 0) return;
    const { main, sidechains } = inlineSidechains(this.records, (r) => this.conversationParent(r));
    if (main.length > 0) yield* this.transcriptOf(main);
    for (const [k, records] of sidechains.entries()) yield* this.transcriptOf(records, k + 1);
  }

  /**
   * The transcript of the session's records, or of one of its inline sidechains (`sidechain`: its number in the file,
   * from 1): a subagent's conversation that Claude Code 1.0 logged in the session's own file.
   */
  private *transcriptOf(recordsInFile: readonly { at: SourcePosition; record: ConversationRec }[], sidechain?: number): Generator<InputItem> {
    const ordered = orderByParent(
      recordsInFile,
      (r) => r.record.uuid,
      (r) => this.conversationParent(r.record),
    );
    const records = ordered.items.map((r) => r.record);
    const marks = findBranches(records.map((r) => ({ id: r.uuid, parent: this.branchParent(r), prompt: isPrompt(r), call: isCall(r) })));
    const built = buildMessages(records, new Map([...marks].map(([i, mark]) => [records[i], mark])), (r) => this.conversationParent(r), this.sessionReplies);
    if (built.messages.length === 0) {
      // Only compaction boundaries and no message: nothing to make a transcript of, but every line is accounted for.
      for (const r of recordsInFile) yield skippedItem(r.at, 'record:system/compact_boundary');
      return;
    }
    const m = this.meta;
    const sessionId = m.sessionIds[0];
    const isSubagent = sidechain === undefined && m.isSidechain === true && m.agentId !== undefined;
    const session = sessionId ?? baseName(this.file);
    const id = sidechain !== undefined ? `${session}:sidechain-${sidechain}` : isSubagent ? `${session}:agent-${m.agentId}` : session;
    const metadata: Record<string, unknown> = { source: { format: 'claude-code', file: this.file } };
    if (sessionId !== undefined) metadata.sessionId = sessionId;
    if (m.sessionIds.length > 1) metadata.sessionIds = m.sessionIds;
    if (m.cwd !== undefined) metadata.cwd = m.cwd;
    if (m.gitBranch !== undefined) metadata.gitBranch = m.gitBranch;
    if (m.versions.length > 0) metadata.version = m.versions[m.versions.length - 1];
    if (m.versions.length > 1) metadata.versions = m.versions;
    if (m.slug !== undefined) metadata.slug = m.slug;
    if (built.models.length > 0) metadata.models = built.models;
    metadata.isSidechain = sidechain !== undefined || (m.isSidechain ?? false);
    if (isSubagent) metadata.agentId = m.agentId;
    if ((isSubagent || sidechain !== undefined) && sessionId !== undefined) metadata.parentSessionId = sessionId;
    if (sidechain === undefined) {
      if (this.subagents.size > 0) {
        metadata.subagents = [...this.subagents].map(([agentId, toolUseId]) => (toolUseId === undefined ? { agentId } : { agentId, toolUseId }));
      }
      const embedded = this.embedded.list((agentId) => `${session}:agent-${agentId}`);
      if (embedded.length > 0) metadata.embeddedCalls = embedded;
    }

    const warnings = [...built.warnings];
    if (ordered.moved > 0) warnings.push(`${ordered.moved} records came before their parent in the file and were moved after it`);
    const repairs: Record<string, number> = ordered.moved > 0 ? { reorderedByParent: ordered.moved } : {};
    if (built.relogDropped > 0) repairs.relogDropped = built.relogDropped;
    if (built.splitReplies > 0) repairs.splitReplies = built.splitReplies;
    if (built.loggedBySession > 0) repairs.loggedBySession = built.loggedBySession;
    if (sidechain === undefined && !isSubagent) withSummaryCalls(built.compactions, this.summaryCalls, (agentId) => `${session}:agent-${agentId}`);
    const indexedMetadata = (at: (index: number) => number) =>
      built.compactions.length === 0 ? {} : { compactions: built.compactions.map((c) => remapCompaction(c, at)) };
    const draft = { id, messages: built.messages, metadata, warnings, repairs, indexedMetadata };
    const first = recordsInFile[0].at;
    yield finishTranscript(draft, { file: first.file, line: first.line, byteOffset: first.byteOffset }, recordsInFile.length);
  }

  /**
   * The record a record goes on from among a session's branches: its conversation parent, but for a compact boundary,
   * which starts a chain of its own (`parentUuid` null), the record it logically follows (`logicalParentUuid`): the
   * compaction and what comes after it are the compacting branch's, not a branch of their own.
   */
  private branchParent(record: ConversationRec): string | undefined {
    const parent = this.conversationParent(record);
    if (parent !== undefined || record.type !== 'system' || typeof record.logicalParentUuid !== 'string') return parent;
    return this.keptUuids().has(record.logicalParentUuid)
      ? record.logicalParentUuid
      : this.conversationParent({ ...record, parentUuid: record.logicalParentUuid });
  }

  /** The nearest ancestor that is a kept record, following parents through skipped records (progress, system). */
  private conversationParent(record: ConversationRec): string | undefined {
    let parent = record.parentUuid ?? undefined;
    const seen = new Set<string>();
    while (parent !== undefined && !this.keptUuids().has(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = this.parents.get(parent) ?? undefined;
    }
    return parent;
  }

  private kept: Set<string> | undefined;
  private keptUuids(): Set<string> {
    this.kept ??= new Set(this.records.map((r) => r.record.uuid).filter((u): u is string => u !== undefined));
    return this.kept;
  }
}

interface Built {
  messages: Message[];
  models: string[];
  compactions: ClaudeCodeCompaction[];
  warnings: string[];
  /** Re-logged assistant records and their repeated tool results, dropped (see `Relogs`). */
  relogDropped: number;
  /** Messages that continue a request logged apart: they carry no usage, the request's first message does. */
  splitReplies: number;
  /** Replies of the session a subagent's file logs again: they carry no usage, the session's file does. */
  loggedBySession: number;
}

/** One subagent's calls embedded in the session's progress records, as `metadata.embeddedCalls` lists them. */
interface EmbeddedAgent {
  agentId: string;
  /** The Task tool use that started the subagent, when recorded. */
  toolUseId?: string;
  /** The id of the transcript the subagent's own file becomes. */
  transcriptId: string;
  /** One entry per request (`message.id`, `requestId`): the model and the latest record's usage. */
  calls: { model?: string; usage: Record<string, unknown>; timestamp?: string }[];
}

/**
 * The subagent calls a session embeds in its `agent_progress` records. Each block of a subagent's reply is a progress
 * record of its own carrying the reply's usage, so a request is kept once (by `message.id` or `requestId`), with the
 * usage of its latest record.
 */
class EmbeddedCalls {
  private readonly agents = new Map<string, { toolUseId?: string; calls: EmbeddedAgent['calls'] }>();
  private readonly requests = new Map<string, EmbeddedAgent['calls'][number]>();

  note(r: Record<string, unknown>): void {
    if (r.type !== 'progress' || !isObject(r.data) || r.data.type !== 'agent_progress' || typeof r.data.agentId !== 'string') return;
    const outer = r.data.message;
    if (!isObject(outer) || outer.type !== 'assistant' || !isObject(outer.message) || !isObject(outer.message.usage)) return;
    const message = outer.message;
    const keys = requestKeys(message.id, outer.requestId);
    const usage = message.usage as Record<string, unknown>;
    const known = keys.map((k) => this.requests.get(k)).find((c) => c !== undefined);
    if (known) {
      known.usage = usage;
      for (const k of keys) this.requests.set(k, known);
      return;
    }
    let agent = this.agents.get(r.data.agentId);
    if (!agent) {
      agent = { calls: [] };
      if (typeof r.parentToolUseID === 'string') agent.toolUseId = r.parentToolUseID;
      this.agents.set(r.data.agentId, agent);
    }
    const call: EmbeddedAgent['calls'][number] = { usage };
    if (typeof message.model === 'string') call.model = message.model;
    const timestamp = typeof outer.timestamp === 'string' ? outer.timestamp : typeof r.timestamp === 'string' ? r.timestamp : undefined;
    if (timestamp !== undefined) call.timestamp = timestamp;
    agent.calls.push(call);
    for (const k of keys) this.requests.set(k, call);
  }

  list(transcriptId: (agentId: string) => string): EmbeddedAgent[] {
    return [...this.agents].map(([agentId, a]) => ({
      agentId,
      ...(a.toolUseId === undefined ? {} : { toolUseId: a.toolUseId }),
      transcriptId: transcriptId(agentId),
      calls: a.calls,
    }));
  }
}

/** The keys a record of one API request is known by: its `message.id` and its `requestId`, when recorded. */
function requestKeys(messageId: unknown, requestId: unknown): string[] {
  const keys: string[] = [];
  if (typeof messageId === 'string') keys.push(`message:${messageId}`);
  if (typeof requestId === 'string') keys.push(`request:${requestId}`);
  return keys;
}

const blockKey = (block: unknown): string => JSON.stringify(block);
const toolUseId = (block: unknown): string | undefined => (isObject(block) && block.type === 'tool_use' && typeof block.id === 'string' ? block.id : undefined);

/**
 * Claude Code sometimes logs a reply a second time on another parent branch: an `assistant` record with the
 * `message.id` of a reply that is already closed, whose blocks that reply already holds (the same tool_use ids), and
 * then the same results for those calls. Kept twice, the copy would count its tokens again and its calls would be
 * renamed as if they were new. Such a record, and a repeated result identical to the first one for one of its calls,
 * is dropped; its line stays counted in the transcript's lines, whose content already holds it.
 */
class Relogs {
  /** Blocks of every reply seen, by message.id (tool_use blocks by id, others by their JSON). */
  private readonly replies = new Map<string, Set<string>>();
  /** First result block of every call, by tool_use id. */
  private readonly results = new Map<string, string>();
  /** Calls of the dropped copies, whose repeated results are dropped too. */
  private readonly relogged = new Set<string>();
  dropped = 0;

  /** Notes an assistant record of reply `id`; true when it is a re-log of a closed reply (to drop). */
  assistant(id: string, open: boolean, blocks: readonly unknown[]): boolean {
    let seen = this.replies.get(id);
    const keys = blocks.map((b) => (toolUseId(b) !== undefined ? `tool_use:${toolUseId(b)}` : blockKey(b)));
    if (!open && seen && blocks.length > 0 && keys.every((k) => seen?.has(k))) {
      for (const b of blocks) {
        const callId = toolUseId(b);
        if (callId !== undefined) this.relogged.add(callId);
      }
      this.dropped++;
      return true;
    }
    if (!seen) this.replies.set(id, (seen = new Set()));
    for (const k of keys) seen.add(k);
    return false;
  }

  /** A user record's content without the repeated results of re-logged calls (the same object when none). */
  userContent(content: string | unknown[]): string | unknown[] {
    if (typeof content === 'string') return content;
    const kept: unknown[] = [];
    for (const block of content) {
      if (isToolResultBlock(block)) {
        const first = this.results.get(block.tool_use_id);
        if (first === undefined) this.results.set(block.tool_use_id, blockKey(block));
        else if (this.relogged.has(block.tool_use_id) && first === blockKey(block)) {
          this.dropped++;
          continue;
        }
      }
      kept.push(block);
    }
    return kept.length === content.length ? content : kept;
  }
}

/**
 * Resumes: on `--resume`, Claude Code rebuilds the prompt by following the `parentUuid` chain from the leaf it resumes
 * and logs that history again (new uuids, the same message ids, contents and timestamps), which the reader drops as a
 * re-log. The rebuilt history is the chain, not what the session had sent: parallel tool calls whose results sit on
 * side records (a `tool_use` record's children are the next block of its reply and its result; the chain goes on
 * through one of them) fall off it, and the copy keeps only the calls whose result is on the chain. The first record
 * kept after a dropped copy, going on from it, is the first after the resume: its message is marked `resume_rebuild`,
 * with, in `resume_left_out`, the calls of the replies on its chain whose `tool_use` and result are not both on it. The messages
 * stay the originals (the canonical transcript keeps every call); the replay leaves those calls out from there on.
 */
class Resumes {
  private readonly byUuid = new Map<string, ConversationRec>();
  /** Uuids of records dropped as a logged-again copy since the last resume found. */
  private readonly copies = new Set<string>();
  /** tool_use ids of the kept assistant records, in order, with the message.id of their reply. */
  private readonly calls: { id: string; reply?: string }[] = [];

  constructor(
    records: readonly ConversationRec[],
    private readonly parentOf: (record: ConversationRec) => string | undefined,
  ) {
    for (const r of records) if (r.uuid !== undefined && !this.byUuid.has(r.uuid)) this.byUuid.set(r.uuid, r);
  }

  /** Notes a record dropped as a copy of one logged before. */
  copied(record: ConversationRec): void {
    if (record.uuid !== undefined) this.copies.add(record.uuid);
  }

  /** The resume fields of a kept record: none unless it goes on from a dropped copy. Notes the record's calls. */
  resumedAt(record: ConversationRec): Record<string, unknown> {
    const parent = this.parentOf(record);
    const fields: Record<string, unknown> = {};
    if (parent !== undefined && this.copies.has(parent)) {
      const chain = this.chain(parent);
      // Of a reply on the chain, the calls whose result is not: they fell off it. Whole stretches off the chain (what
      // came before a compaction boundary) are the source's own compaction, not this.
      const leftOut = this.calls.filter((c) => c.reply !== undefined && chain.replies.has(c.reply) && !chain.calls.has(c.id)).map((c) => c.id);
      fields.resume_rebuild = true;
      if (leftOut.length > 0) fields.resume_left_out = leftOut;
      this.copies.clear();
    }
    if (record.type === 'assistant')
      for (const block of record.message.content) {
        const id = toolUseId(block);
        if (id !== undefined) this.calls.push({ id, reply: record.message.id });
      }
    return fields;
  }

  /** On the chain that ends at `uuid`: the replies (message.id) and the calls whose `tool_use` and result both are. */
  private chain(uuid: string): { replies: Set<string>; calls: Set<string> } {
    const replies = new Set<string>();
    const uses = new Set<string>();
    const results = new Set<string>();
    const seen = new Set<string>();
    for (let at: string | undefined = uuid; at !== undefined && !seen.has(at);) {
      seen.add(at);
      const r = this.byUuid.get(at);
      if (!r) break;
      if (r.type === 'assistant') {
        if (r.message.id !== undefined) replies.add(r.message.id);
        for (const b of r.message.content) if (toolUseId(b) !== undefined) uses.add(toolUseId(b) as string);
      }
      if (r.type === 'user' && Array.isArray(r.message.content)) for (const b of r.message.content) if (isToolResultBlock(b)) results.add(b.tool_use_id);
      at = this.parentOf(r);
    }
    return { replies, calls: new Set([...uses].filter((id) => results.has(id))) };
  }
}

/** The model Claude Code names on a reply it wrote itself, with no API call: no usage, no `requestId`. */
const SYNTHETIC_MODEL = '<synthetic>';

/** Assembles the canonical messages of one session from its conversation records, in order. */
function buildMessages(
  records: readonly ConversationRec[],
  branches: ReadonlyMap<ConversationRec, BranchMark>,
  parentOf: (record: ConversationRec) => string | undefined,
  sessionReplies: ReadonlySet<string>,
): Built {
  const messages: Message[] = [];
  const models: string[] = [];
  const compactions: ClaudeCodeCompaction[] = [];
  const warnings: string[] = [];
  let reply: { id: string; index: number; blocks: AssistantBlocks; extra: Record<string, unknown> } | undefined;
  let deferred: { message: Message; place?: (index: number) => void }[] = [];
  let openBoundary: ClaudeCodeCompaction | undefined;
  const relogs = new Relogs();
  /** By request key (see requestKeys): the message that carries the request's usage. */
  const carriers = new Map<string, number>();
  let splitReplies = 0;
  const loggedBySession = new Set<number>();
  // A record equal to an earlier one in message id, content and timestamp is that record logged again (a resume
  // re-logs a stretch with new uuids), wherever it sits: the reply it belongs to may still be open.
  const exact = new Set<string>();
  const resumes = new Resumes(records, parentOf);
  const microcompacts = new UnloggedMicrocompacts();

  const place = (message: Message, onPlaced?: (index: number) => void) => {
    onPlaced?.(messages.length);
    messages.push(message);
  };
  const closeReply = () => {
    if (!reply) return;
    messages[reply.index] = assistantFromBlocks(reply.blocks, reply.extra);
    if (reply.blocks.unmapped.length > 0)
      warnings.push(`assistant message ${reply.index}: ${reply.blocks.unmapped.length} content blocks with no canonical equivalent kept in unmapped_blocks`);
    reply = undefined;
    for (const d of deferred) place(d.message, d.place);
    deferred = [];
  };
  const placeUser = (message: Message, onPlaced?: (index: number) => void) => {
    if (reply) deferred.push({ message, place: onPlaced });
    else place(message, onPlaced);
  };

  for (const record of records) {
    if (record.type === 'system') {
      openBoundary = {
        trigger: isObject(record.compactMetadata) && typeof record.compactMetadata.trigger === 'string' ? record.compactMetadata.trigger : undefined,
        preTokens: isObject(record.compactMetadata) && typeof record.compactMetadata.preTokens === 'number' ? record.compactMetadata.preTokens : undefined,
        boundaryUuid: record.uuid,
        logicalParentUuid: typeof record.logicalParentUuid === 'string' ? record.logicalParentUuid : undefined,
        timestamp: record.timestamp,
      };
      const entry = openBoundary;
      compactions.push(entry);
      microcompacts.compacted();
      // The boundary sits before whatever message comes next, which may still be deferred behind an open reply.
      closeReply();
      entry.boundaryIndex = messages.length;
      continue;
    }
    if (record.timestamp !== undefined) {
      const id = record.type === 'assistant' ? record.message.id : undefined;
      const key = JSON.stringify([record.type, id ?? null, record.timestamp, record.message.content]);
      if (exact.has(key)) {
        relogs.dropped++;
        resumes.copied(record);
        continue;
      }
      exact.add(key);
    }
    const extra: Record<string, unknown> = {};
    if (record.timestamp !== undefined) extra.timestamp = record.timestamp;
    const branch = branchFields(branches.get(record));
    if (record.type === 'assistant') {
      const id = record.message.id ?? record.uuid ?? `record-${messages.length}`;
      if (record.message.id !== undefined && relogs.assistant(id, reply?.id === id, record.message.content)) {
        resumes.copied(record);
        continue;
      }
      const resume = resumes.resumedAt(record);
      const keys = requestKeys(record.message.id, record.requestId);
      const carrier = keys.map((k) => carriers.get(k)).find((i) => i !== undefined);
      if (reply?.id !== id) {
        closeReply();
        reply = { id, index: messages.length, blocks: emptyAssistantBlocks(), extra };
        messages.push({ role: 'assistant', content: null }); // placeholder until the reply is complete
        if (carrier !== undefined) {
          splitReplies++;
          reply.extra.continues_call = true;
        }
        if (typeof record.version === 'string') reply.extra.client_version = record.version;
        if (carrier === undefined && microcompacts.before(record.version, branch.thread ?? 0, record.message.usage)) reply.extra.unlogged_microcompact = true;
      }
      Object.assign(reply.extra, branch, resume);
      for (const k of keys) if (!carriers.has(k)) carriers.set(k, carrier ?? reply.index);
      for (const block of record.message.content) addAssistantBlock(reply.blocks, block);
      const model = record.message.model;
      if (model === SYNTHETIC_MODEL) reply.extra.is_synthetic = true;
      if (model !== undefined) {
        reply.extra.model = model;
        if (!models.includes(model) && model !== SYNTHETIC_MODEL) models.push(model);
      }
      const key = replyKey(record.message.id, record.requestId);
      if (key !== undefined && sessionReplies.has(key)) {
        // The session's own call, logged again here: history of this subagent, billed in the session's file.
        reply.extra.logged_by_session = true;
        loggedBySession.add(reply.index);
      }
      // The request's usage stays on its first message, the latest record's (closed: the message is final).
      else if (record.message.usage !== undefined) {
        const final = typeof record.message.stop_reason === 'string';
        const holder = carrier === undefined || carrier === reply.index ? reply.extra : (messages[carrier] as Record<string, unknown>);
        holder.usage = record.message.usage;
        if (final) holder.usage_final = true;
        else delete holder.usage_final;
      }
      if (record.isApiErrorMessage === true) reply.extra.is_api_error = true;
      continue;
    }
    if (record.isMeta === true) extra.is_meta = true;
    if (typeof record.attachmentType === 'string') extra.attachment = record.attachmentType;
    const isSummary = record.isCompactSummary === true;
    if (isSummary) extra.is_compact_summary = true;
    const content = relogs.userContent(record.message.content);
    // A record of repeated results alone leaves nothing.
    if (content !== record.message.content && content.length === 0) {
      resumes.copied(record);
      continue;
    }
    Object.assign(extra, branch, resumes.resumedAt(record));
    const turn = userTurnMessages(content, extra);
    for (const tool of turn.tools) messages.push(tool);
    if (!turn.user) continue;
    if (isPrompt(record)) {
      const mentions = fileMentions(promptText(record.message.content));
      if (mentions.length > 0) turn.user.file_mentions = mentions;
    }
    if (turn.user.unmapped_blocks)
      warnings.push(`a user record at ${record.uuid ?? '?'} has content blocks with no canonical equivalent, kept in unmapped_blocks`);
    if (isSummary) {
      microcompacts.compacted();
      const entry = openBoundary ?? {};
      if (!openBoundary) compactions.push(entry);
      openBoundary = undefined;
      placeUser(turn.user, (index) => {
        entry.summaryIndex = index;
      });
    } else placeUser(turn.user);
  }
  closeReply();
  markUnrecordedRequests(messages);
  return {
    messages,
    models,
    compactions: compactions.map(dropUndefined),
    warnings,
    relogDropped: relogs.dropped,
    splitReplies,
    loggedBySession: loggedBySession.size,
  };
}

/**
 * Claude Code 1.0 logged a subagent's conversation (a `Task`) in the session's own file, its records marked
 * `isSidechain: true` and chained apart from the session's (the sidechain's first record has no parent in the
 * session). 2.0 writes them in `<session>/subagents/agent-*.jsonl`. In a file that holds the session's own records,
 * the sidechain records are split off by chain, one group per subagent conversation (in file order), so they are not
 * read as calls of the session; a file of sidechain records alone (a subagent's own file) stays whole.
 */
function inlineSidechains<T extends { record: ConversationRec }>(
  records: readonly T[],
  parentOf: (record: ConversationRec) => string | undefined,
): { main: T[]; sidechains: T[][] } {
  const isSide = (r: ConversationRec): boolean => r.isSidechain === true;
  if (!records.some((r) => isSide(r.record)) || records.every((r) => isSide(r.record))) return { main: [...records], sidechains: [] };
  const byUuid = new Map<string, ConversationRec>();
  for (const r of records) if (r.record.uuid !== undefined) byUuid.set(r.record.uuid, r.record);
  const rootOf = new Map<ConversationRec, ConversationRec>();
  const root = (record: ConversationRec): ConversationRec => {
    // Up the chain while the parent is a sidechain record; a parent of the session's own, or a cycle, ends it.
    const path = new Set<ConversationRec>();
    let at = record;
    let found = rootOf.get(at);
    while (found === undefined) {
      path.add(at);
      const parent = parentOf(at);
      const up = parent === undefined ? undefined : byUuid.get(parent);
      if (up === undefined || !isSide(up) || path.has(up)) found = at;
      else {
        at = up;
        found = rootOf.get(at);
      }
    }
    for (const r of path) rootOf.set(r, found);
    return found;
  };
  const main: T[] = [];
  const groups = new Map<ConversationRec, T[]>();
  for (const r of records) {
    if (!isSide(r.record)) {
      main.push(r);
      continue;
    }
    const key = root(r.record);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return { main, sidechains: [...groups.values()] };
}

/** A user record the user typed: not tool results alone, not client text, not a compaction summary. */
function isPrompt(r: ConversationRec): boolean {
  if (r.type !== 'user' || r.isMeta === true || r.isCompactSummary === true) return false;
  const content = r.message.content;
  return typeof content === 'string' || content.some((block) => !isToolResultBlock(block));
}

/** The text the user typed in a prompt: its string, or its text blocks joined. */
function promptText(content: UserRec['message']['content']): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n');
}

/** An assistant record of a reply a model answered. */
const isCall = (r: ConversationRec): boolean => r.type === 'assistant' && r.message.usage !== undefined && r.message.model !== SYNTHETIC_MODEL;

/** The message fields of a record's place among a forked session's branches (none outside a fork). */
function branchFields(mark: BranchMark | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (mark?.thread !== undefined) out.thread = mark.thread;
  if (mark?.branchPoint !== undefined) out.branch_point = mark.branchPoint;
  if (mark?.branchFrom !== undefined) out.branch_from = mark.branchFrom;
  return out;
}

/**
 * Gives each compaction the summary call its agent logged (see compactionAgentCalls): the call is made just before the
 * boundary is written, so each call goes to the first compaction not yet given one whose boundary comes at or after it.
 */
function withSummaryCalls(compactions: ClaudeCodeCompaction[], calls: readonly CompactionAgentCall[], transcriptOf: (agentId: string) => string): void {
  let next = 0;
  for (const call of calls) {
    const at = Date.parse(call.timestamp);
    while (next < compactions.length && !(Date.parse(compactions[next].timestamp ?? '') >= at)) next++;
    if (next === compactions.length) return;
    compactions[next].summaryUsage = call.usage;
    if (call.model !== undefined) compactions[next].summaryModel = call.model;
    compactions[next].summaryTranscriptId = transcriptOf(call.agentId);
    next++;
  }
}

function remapCompaction(c: ClaudeCodeCompaction, at: (index: number) => number): ClaudeCodeCompaction {
  const out = { ...c };
  if (out.summaryIndex !== undefined) out.summaryIndex = at(out.summaryIndex);
  if (out.boundaryIndex !== undefined) out.boundaryIndex = at(out.boundaryIndex);
  return out;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
