import type { ContextManagerOptionsInput } from '../context/options.js';
import type { AiSdkPrune } from '../replay/policies/runtime/ai-sdk-prune.js';
import { type AnthropicContextManagement, CLEARED_RESULT, type ClearToolUses } from '../replay/policies/runtime/anthropic-context-editing.js';
import type { TuneCandidate } from './candidates.js';

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
}

/** The keep and trigger of the closest clearing for a ContextManager candidate: compaction at 90%, the last 10 results. */
function clearingOf(candidate: TuneCandidate, window: number): ClearToolUses {
  if (candidate.runtime === 'anthropic') return candidate.edit;
  return {
    type: 'clear_tool_uses_20250919',
    trigger: { type: 'input_tokens', value: Math.round(0.9 * window) },
    keep: { type: 'tool_uses', value: 10 },
    clear_at_least: null,
    exclude_tools: [],
    clear_tool_inputs: false,
  };
}

/** `context_management` of a Messages API request. */
function anthropicExport(candidate: TuneCandidate, window: number): RuntimeExport {
  const settings: AnthropicContextManagement = { edits: [clearingOf(candidate, window)] };
  return candidate.runtime === 'anthropic'
    ? { runtime: 'anthropic', settings, exact: true }
    : { runtime: 'anthropic', settings, exact: false, note: 'clears tool results at 90% of the window, keeping the last 10, where tcompact masks them' };
}

/** The arguments of LangChain's `ClearToolUsesEdit` (context-editing middleware), in its Python names. */
function langchainExport(candidate: TuneCandidate, window: number): RuntimeExport {
  const edit = clearingOf(candidate, window);
  const settings = {
    edits: [
      {
        type: 'clear_tool_uses',
        trigger: edit.trigger.type === 'input_tokens' ? edit.trigger.value : Math.round(0.9 * window),
        keep: edit.keep.value,
        clear_at_least: edit.clear_at_least?.value ?? 0,
        clear_tool_inputs: edit.clear_tool_inputs !== false,
        exclude_tools: edit.exclude_tools,
        placeholder: CLEARED_RESULT,
      },
    ],
  };
  const notes: string[] = [];
  if (candidate.runtime !== 'anthropic') notes.push('clears where tcompact masks');
  if (edit.clear_at_least !== null) notes.push('LangChain stops clearing once clear_at_least tokens are freed instead of requiring them');
  return notes.length === 0 ? { runtime: 'langchain', settings, exact: true } : { runtime: 'langchain', settings, exact: false, note: notes.join('; ') };
}

/**
 * `pruneMessages` options: it has no token trigger and removes calls with their results instead of leaving a
 * placeholder, so the closest is to drop every call before the last `keep` tool uses (two messages each), sparing the
 * excluded tools.
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
    note: 'pruneMessages has no trigger: it prunes every prompt, and removes old calls with their results instead of leaving a placeholder',
  };
}

/** `ContextManager` options. */
function tcompactExport(candidate: TuneCandidate, window: number): RuntimeExport {
  if (candidate.runtime === 'tcompact') return { runtime: 'tcompact', settings: candidate.options, exact: true };
  const edit = candidate.edit;
  const settings: ContextManagerOptionsInput = {
    window,
    ...(edit.trigger.type === 'input_tokens' ? { compactAtTokens: edit.trigger.value } : {}),
    micro: [],
    strategies: ['mask-observations'],
  };
  return { runtime: 'tcompact', settings, exact: false, note: 'masks old tool results at the trigger (the last 10 results kept) where Anthropic clears them' };
}

/** The recommended setting for each runtime, exactly where the runtime can express it. */
export function runtimeExports(candidate: TuneCandidate, window: number, tools: readonly string[]): RuntimeExport[] {
  return [anthropicExport(candidate, window), langchainExport(candidate, window), aiSdkExport(candidate, window, tools), tcompactExport(candidate, window)];
}
