import { type ContextManagerOptionsInput, DEFAULT_EDIT_TAIL } from '../context/options.js';
import type { AiSdkPrune } from '../replay/policies/runtime/ai-sdk-prune.js';
import type { AnthropicContextManagement, ClearToolUses } from '../replay/policies/runtime/anthropic-context-editing.js';
import type { LangChainClearToolUsesInput } from '../replay/policies/runtime/langchain-context-editing.js';
import { CACHE_RULES } from '../provider/cache-rules.js';
import type { GridContext, TuneCandidate } from './candidates.js';

/** The runtimes `tune` writes settings for, each loaded as it is by that runtime. */
export const EXPORT_RUNTIMES = ['anthropic', 'langchain', 'ai-sdk', 'tcompact'] as const;
export type ExportRuntime = (typeof EXPORT_RUNTIMES)[number];

export interface RuntimeExport {
  runtime: ExportRuntime;
  /** What the runtime loads: the file's whole content. */
  settings: unknown;
  /** True when the runtime applies exactly the recommended setting; false for the closest one it can express. */
  exact: boolean;
  /** What differs, when not exact. */
  note?: string;
  /** How an agent hands the file to the runtime. */
  load: string;
  /** How the same runtime runs tcompact's own setting (exports/tcompact.json) through its adapter instead. */
  adapter?: string;
}

/** Each runtime's adapter, loading `tcompact.json` (the ContextManager export) unchanged. */
const ADAPTER: Record<Exclude<ExportRuntime, 'tcompact'>, string> = {
  anthropic:
    '`const edit = tcompactAnthropic(settings)` (`tcompact/anthropic`, settings: tcompact.json), then `client.messages.create(await edit({ ...request, messages: history }))` on every call: the edits and at most 4 cache breakpoints on the stable prefix and the tail',
  langchain:
    '`createAgent({ ...agent, middleware: [tcompactMiddleware(settings)] })` (`tcompact/langchain`, settings: tcompact.json): the request is edited, the agent state kept whole',
  'ai-sdk': '`prepareStep: tcompactPrepareStep(settings)` (`tcompact/ai-sdk`, settings: tcompact.json) in `generateText` or `streamText`, one per conversation',
};

/** The runtime's export with its adapter's snippet. */
const withAdapter = (e: RuntimeExport): RuntimeExport => (e.runtime === 'tcompact' ? e : { ...e, adapter: ADAPTER[e.runtime] });

/** How each runtime loads its file (its JSON as `settings`): what the replay of that file assumes. */
const LOAD: Record<ExportRuntime, string> = {
  anthropic:
    "`client.beta.messages.create({ ...request, betas: ['context-management-2025-06-27'], context_management: settings })` on every call, with the whole history: context editing is in the beta Messages API only (that header), and the server edits each request afresh",
  langchain:
    "`createAgent({ ...agent, middleware: [contextEditingMiddleware({ edits: [new ClearToolUsesEdit(settings)], tokenCountMethod: 'approx' })] })` (LangChain JS; 'approx', the default, is the counter the replay uses)",
  'ai-sdk':
    '`prepareStep: ({ messages }) => ({ messages: pruneMessages({ messages, ...settings }) })` in `generateText` or `streamText`: every step pruned from the whole history',
  tcompact: '`new ContextManager(settings)`, and `manager.check({ messages, tokens })` before every model call',
};

/** The closest clearing for a ContextManager candidate: at 90% of the window, keeping the results its edits keep (DEFAULT_EDIT_TAIL by default). */
function clearingOf(candidate: TuneCandidate, window: number): ClearToolUses {
  if (candidate.runtime === 'anthropic') return candidate.edit;
  return {
    type: 'clear_tool_uses_20250919',
    trigger: { type: 'input_tokens', value: Math.round(0.9 * window) },
    keep: { type: 'tool_uses', value: candidate.options.editTail?.results ?? DEFAULT_EDIT_TAIL.results },
    clear_at_least: null,
    exclude_tools: [],
    clear_tool_inputs: false,
  };
}

/** `context_management` of a Messages API request. */
function anthropicExport(candidate: TuneCandidate, window: number): RuntimeExport {
  const settings: AnthropicContextManagement = { edits: [clearingOf(candidate, window)] };
  return candidate.runtime === 'anthropic'
    ? { runtime: 'anthropic', settings, exact: true, load: LOAD.anthropic }
    : {
        runtime: 'anthropic',
        settings,
        exact: false,
        note: `clears tool results at 90% of the window, keeping the last ${settings.edits[0].keep.value}, where tcompact masks them`,
        load: LOAD.anthropic,
      };
}

/**
 * `ClearToolUsesEdit`'s constructor options, in LangChain JS's names. Never exact: its clears persist in the agent's
 * history (Anthropic's are made afresh on each request) and its trigger counts the messages' characters ÷ 4; what it
 * cannot express is left out and said.
 */
function langchainExport(candidate: TuneCandidate, window: number): RuntimeExport {
  const edit = clearingOf(candidate, window);
  const notes: string[] = [];
  if (candidate.runtime !== 'anthropic') notes.push(`clears tool results at 90% of the window, keeping the last ${edit.keep.value}, where tcompact masks them`);
  notes.push("its clears stay in the agent's history and its trigger counts the messages' characters ÷ 4 (tools and system prompt left out)");
  if (edit.trigger.type === 'tool_uses') notes.push('triggers at 90% of the window: LangChain has no trigger on a number of tool uses');
  const inputs = edit.clear_tool_inputs;
  if (Array.isArray(inputs) && inputs.length > 0)
    notes.push(`clears no tool input: LangChain clears every tool's or none, where the setting clears ${inputs.join(', ')}'s`);
  if (edit.clear_at_least !== null) notes.push("no minimum to clear: LangChain's clearAtLeast (deprecated) clears more results instead of requiring a minimum");
  const settings: LangChainClearToolUsesInput = {
    trigger: { tokens: edit.trigger.type === 'input_tokens' ? edit.trigger.value : Math.round(0.9 * window) },
    keep: { messages: edit.keep.value },
    clearToolInputs: inputs === true,
    excludeTools: edit.exclude_tools,
  };
  return { runtime: 'langchain', settings, exact: false, note: notes.join('; '), load: LOAD.langchain };
}

/**
 * `pruneMessages` options: it has no token trigger and removes calls with their results instead of leaving a
 * placeholder, so the closest is to drop every call before the last `keep` steps (two messages each: the SDK puts a
 * step's results in one tool message), sparing the excluded tools.
 */
function aiSdkExport(candidate: TuneCandidate, window: number, tools: readonly string[]): RuntimeExport {
  const edit = clearingOf(candidate, window);
  const pruned = tools.filter((t) => !edit.exclude_tools.includes(t));
  const rule = { type: `before-last-${2 * edit.keep.value}-messages`, ...(edit.exclude_tools.length > 0 ? { tools: pruned } : {}) };
  const settings: AiSdkPrune = { reasoning: 'none', toolCalls: [rule], emptyMessages: 'remove' };
  return {
    runtime: 'ai-sdk',
    settings,
    exact: false,
    note: "pruneMessages has no trigger: it prunes every prompt, removes old calls with their results instead of leaving a placeholder, and counts a step's results as one message",
    load: LOAD['ai-sdk'],
  };
}

/** `ContextManager` options. */
function tcompactExport(candidate: TuneCandidate, window: number): RuntimeExport {
  if (candidate.runtime === 'tcompact') {
    // Replayed with each session's own cache: the agent names its provider's, which the file cannot know.
    const note = candidate.options.cache === undefined ? "add `cache`: your provider's prompt cache (each session was replayed with its own)" : undefined;
    return { runtime: 'tcompact', settings: candidate.options, exact: true, ...(note ? { note } : {}), load: LOAD.tcompact };
  }
  const edit = candidate.edit;
  const settings: ContextManagerOptionsInput = {
    window,
    ...(edit.trigger.type === 'input_tokens' ? { compactAtTokens: edit.trigger.value } : {}),
    micro: [],
    edits: [],
    strategies: ['mask-observations'],
  };
  return {
    runtime: 'tcompact',
    settings,
    exact: false,
    note: 'masks old tool results at the trigger (the last 10 results kept) where Anthropic clears them',
    load: LOAD.tcompact,
  };
}

/**
 * How a caller that decides when to prune (LangChain's middleware list, the AI SDK's prepareStep) makes its edits free:
 * run them only on a call whose gap since the previous one passed the cache's TTL, when the cached prompt is gone
 * anyway. The replay of the file does not (it prunes as the runtime does by itself).
 */
function coldCallNote(grid: GridContext): string | undefined {
  const ttl = CACHE_RULES[grid.cache].ttlSeconds;
  if (ttl === null) return undefined;
  const after = ttl % 3600 === 0 ? `${ttl / 3600} h` : `${ttl / 60} min`;
  return `to edit only when it is free, apply it on calls more than ${after} after the previous one (${grid.cache}: the cached prompt is gone then)`;
}

const withNote = (e: RuntimeExport, note: string | undefined): RuntimeExport =>
  note === undefined ? e : { ...e, exact: false, note: e.note === undefined ? note : `${e.note}; ${note}` };

/** The recommended setting for each runtime, exactly where the runtime can express it. */
export function runtimeExports(candidate: TuneCandidate, window: number, tools: readonly string[], grid: GridContext): RuntimeExport[] {
  const cold = coldCallNote(grid);
  return [
    anthropicExport(candidate, window),
    withNote(langchainExport(candidate, window), cold),
    withNote(aiSdkExport(candidate, window, tools), cold),
    tcompactExport(candidate, window),
  ].map(withAdapter);
}
