import * as z from 'zod';
import { type ContentPart, contentSchemas } from './content.js';
import { onFirstUse } from '../on-first-use.js';

/** The schemas of the known roles' messages. Built on first use: valid input never reaches them (model/quick-check.ts). */
const schemas = onFirstUse(() => {
  const content = contentSchemas();
  const ToolCallSchema = z.looseObject({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.looseObject({ name: z.string(), arguments: z.string() }),
  });

  const TextContent = z.union([z.string(), z.array(content.text)]);

  /**
   * Extensions the format readers record beside the OpenAI fields (read them through model/recorded.ts). Every role: when
   * the source logged the message (ISO 8601 text or epoch milliseconds); in a session whose history forks into branches
   * (two processes writing one Claude Code file): the branch it is on (`thread`, absent on the first), the fork it is the
   * last shared message before (`branch_point`), the fork whose branch it starts (`branch_from`); and the first message
   * after a resume that rebuilt the prompt from the chain (`resume_rebuild`: what fell off the chain was not sent), with
   * the tool calls the rebuilt chain left out, whose `tool_use` blocks and results no later call sent (`resume_left_out`,
   * their ids).
   */
  const Recorded = {
    timestamp: z.union([z.string(), z.number()]).optional(),
    thread: z.number().int().min(1).optional(),
    branch_point: z.number().int().min(0).optional(),
    branch_from: z.number().int().min(0).optional(),
    resume_rebuild: z.boolean().optional(),
    resume_left_out: z.array(z.string()).optional(),
  };

  const SystemMessageSchema = z.looseObject({
    role: z.literal('system'),
    content: TextContent,
    name: z.string().optional(),
    ...Recorded,
  });
  const DeveloperMessageSchema = z.looseObject({
    role: z.literal('developer'),
    content: TextContent,
    name: z.string().optional(),
    ...Recorded,
  });
  const UserMessageSchema = z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(content.part)]),
    name: z.string().optional(),
    ...Recorded,
    /** Extension: the summary a source put in place of the history at its own compaction (Claude Code, Codex, Cline, Gemini). */
    is_compact_summary: z.boolean().optional(),
    /** Extension: text the client added, not typed by the user (Claude Code `isMeta`: skill expansions, reminders). */
    is_meta: z.boolean().optional(),
    /** Extension: what the client attached to the request, logged apart (Claude Code `attachment` records): its kind. */
    attachment: z.string().optional(),
    /**
     * Extension: the files the user's text names with `@` (Claude Code): the client sent their content with the prompt,
     * in no record of versions before 2.1.128.
     */
    file_mentions: z.array(z.string()).optional(),
    /**
     * Extension: the message that ends a request the user interrupted before any reply was logged, which the record
     * shows reached the provider (Claude Code): billed with the conversation up to this message, usage unrecorded.
     */
    unrecorded_request: z.boolean().optional(),
  });
  const AssistantMessageSchema = z.looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(z.union([content.text, content.refusal])), z.null()]).optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
    /**
     * Reasoning ("thinking") text, the field OpenAI-compatible servers such as vLLM and DeepSeek use.
     * Several thinking blocks of one reply are joined with a blank line.
     */
    reasoning_content: z.string().optional(),
    refusal: z.string().nullable().optional(),
    name: z.string().optional(),
    ...Recorded,
    /** Extension: the model that answered, as the source recorded it. */
    model: z.string().optional(),
    /** Extension: the provider's usage record of the call that produced this reply, in the provider's own field names. */
    usage: z.record(z.string(), z.unknown()).optional(),
    /**
     * Extension: `reasoning_content` holds thought summaries the client never sends back (Gemini CLI drops thought parts
     * from its history): later prompts hold the reply without them, and the call's output is its usage record's (the
     * provider bills the whole thinking, not the summaries).
     */
    reasoning_not_resent: z.boolean().optional(),
    /** Extension: the client sent the same prompt again after this reply (a malformed answer): billed, never in a later prompt. */
    retried: z.boolean().optional(),
    /** Extension: a round trip the log does not hold (a tool call and its result) came after this reply, before the next call. */
    unlogged_round_trip: z.boolean().optional(),
    /** Extension: the version of the client that made the call (Claude Code's `version`), where the source records it. */
    client_version: z.string().optional(),
    /**
     * Extension: before this reply's call the client cleared old tool results from what it sent without logging it (Claude
     * Code 2.1.2 and 2.1.3's microcompact, read from the fall of the recorded prompt): the replay clears them there.
     */
    unlogged_microcompact: z.boolean().optional(),
    /**
     * Extension: a reply the client wrote itself, with no model call behind it (Claude Code's `<synthetic>` model: "No
     * response requested.", usage-limit notices). It stays in the conversation but is no call.
     */
    is_synthetic: z.boolean().optional(),
    /**
     * Extension: the rest of a reply whose records another branch's records split (Claude Code): the same request as the
     * reply before it on its branch, which carries the usage. No call of its own.
     */
    continues_call: z.boolean().optional(),
    /**
     * Extension: a reply of the session that started this subagent, logged again in the subagent's file under the same
     * message and request ids (Claude Code's compaction agent): the session's call, billed there. No call of its own.
     */
    logged_by_session: z.boolean().optional(),
    /**
     * Extension: the usage is the provider's final one for the call. Claude Code marks only those: it logs most replies
     * with their first stream event's usage, whose `output_tokens` is not the billed output (see recorded.ts).
     */
    usage_final: z.boolean().optional(),
  });
  const ToolMessageSchema = z.looseObject({
    role: z.literal('tool'),
    tool_call_id: z.string().min(1),
    content: z.union([z.string(), z.array(content.part)]),
    /**
     * Extension: whether the tool reported a failure (Claude Code and the Messages API's `is_error`, OpenHands error
     * observations, LangChain's ToolMessage `status`, the AI SDK's output type). `false` is the producer saying it did not
     * fail; no flag means it cannot say (tau-bench, SWE-agent, a ToolMessage without `status`), and the result's first
     * line tells (model/tool-outcome.ts). The runtimes' converters keep what the runtime's message says, no more.
     */
    is_error: z.boolean().optional(),
    /** Extension some producers add (tau-bench): the tool's name. */
    name: z.string().optional(),
    ...Recorded,
  });
  return {
    toolCall: ToolCallSchema,
    byRole: {
      system: SystemMessageSchema,
      developer: DeveloperMessageSchema,
      user: UserMessageSchema,
      assistant: AssistantMessageSchema,
      tool: ToolMessageSchema,
    } as const,
  };
});
type Schemas = ReturnType<typeof schemas>;

const KNOWN_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
type KnownRole = (typeof KNOWN_ROLES)[number];

export const knownMessageSchemas = (): Schemas['byRole'] => schemas().byRole;

export type ToolCall = z.infer<Schemas['toolCall']>;
export type SystemMessage = z.infer<Schemas['byRole']['system']>;
type DeveloperMessage = z.infer<Schemas['byRole']['developer']>;
export type UserMessage = z.infer<Schemas['byRole']['user']>;
export type AssistantMessage = z.infer<Schemas['byRole']['assistant']>;
export type ToolMessage = z.infer<Schemas['byRole']['tool']>;
type KnownMessage = SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage;

/** A message whose role tcompact does not know: passed through unchanged, never modified by strategies. */
interface UnknownRoleMessage {
  role: string;
  [key: string]: unknown;
}

export type Message = KnownMessage | UnknownRoleMessage;

type ByRole = { system: SystemMessage; developer: DeveloperMessage; user: UserMessage; assistant: AssistantMessage; tool: ToolMessage };

export function isKnownRole(role: string): role is KnownRole {
  return (KNOWN_ROLES as readonly string[]).includes(role);
}

/** Narrows a message by role (a plain `m.role === 'x'` check cannot narrow past UnknownRoleMessage). */
export function isRole<R extends KnownRole>(message: Message, role: R): message is ByRole[R] {
  return message.role === role;
}

/** A message's content: a known role's as its schema types it; an unknown role's as it came (read as text or parts). */
export const messageContent = (m: Message): string | readonly ContentPart[] | null | undefined =>
  m.content as string | readonly ContentPart[] | null | undefined;

export const isAssistant = (m: Message): m is AssistantMessage => m.role === 'assistant';
export const isTool = (m: Message): m is ToolMessage => m.role === 'tool';
export const isUser = (m: Message): m is UserMessage => m.role === 'user';
