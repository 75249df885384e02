import type { ContextManagerOptionsInput } from '../context/options.js';
import { AnthropicContextManagementSchema, type ClearToolUses } from '../replay/policies/runtime/anthropic-context-editing.js';
import { CACHE_RULES, type CacheModelName } from '../provider/cache-rules.js';
import type { TokenizerName } from '../tokens/tokenizer.js';
import type { ToolUsage } from './tool-usage.js';

/** A setting `tune` replays: Anthropic's context editing, or tcompact's own ContextManager. */
export type TuneCandidate =
  { name: string; runtime: 'anthropic'; edit: ClearToolUses } | { name: string; runtime: 'tcompact'; options: ContextManagerOptionsInput };

/** What the grid is tuned to: the archive's prompt cache and how many calls it stays warm for after a call. */
export interface GridContext {
  cache: CacheModelName;
  /** Calls expected after a call before the cache goes cold again, measured on the archive (see warm-runs.ts). */
  expectedCalls: number;
}

/** Triggers, as fractions of the window: a short session never reaches 90% of a large window, so lower ones too. */
const TRIGGERS = [0.1, 0.25, 0.5, 0.75];
/** Tool uses kept whole after a clear: Anthropic's default, and a wider one. */
const KEEPS = [3, 10];
/** A tool whose output the session needed again this often (and called at least this many times) is worth excluding. */
const NEEDED_RATE = 0.5;
const NEEDED_MIN_CALLS = 3;

/** The tools worth excluding from clearing: their outputs were needed again at least half the time. */
export function neededTools(usage: readonly ToolUsage[]): string[] {
  return usage.filter((u) => u.calls >= NEEDED_MIN_CALLS && u.neededRate !== null && u.neededRate >= NEEDED_RATE).map((u) => u.tool);
}

/**
 * The fewest tokens a clear must free to pay for the rewrite it causes at a prompt of `trigger` tokens: Anthropic finds
 * the cache only within its lookback before the last mark, so a clear of older results has the whole prompt written
 * again ((write - read) x trigger), and what it frees is then read at every call while the cache is warm (read x freed
 * x expected calls).
 */
export function breakEvenClear(trigger: number, grid: GridContext): number {
  const rules = CACHE_RULES[grid.cache];
  const write = rules.kind === 'prefix' ? 1 : rules.writeMultiplier;
  return Math.max(1, Math.round(((write - rules.readMultiplier) / (rules.readMultiplier * grid.expectedCalls)) * trigger));
}

function clearing(trigger: number, keep: number, exclude: string[], inputs: boolean, atLeast: number | null): ClearToolUses {
  return AnthropicContextManagementSchema.parse({
    edits: [
      {
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: trigger },
        keep: { type: 'tool_uses', value: keep },
        ...(atLeast === null ? {} : { clear_at_least: { type: 'input_tokens', value: atLeast } }),
        exclude_tools: exclude,
        clear_tool_inputs: inputs,
      },
    ],
  }).edits[0];
}

/**
 * The grid: Anthropic's clearing at each trigger, keeping 3 or 10 tool uses, with no tool excluded or the needed ones,
 * clearing results only or inputs too, and each trigger and keep again with `clear_at_least` at the break-even (so a
 * clear happens only when it pays for the rewrite it causes); and tcompact's ContextManager: cache-aware (its default
 * tail of 1 result, with the archive's cache and warm calls; with tails of 3 and 10 results, whose edits reach
 * further back, past Anthropic's lookback; and told each session's own cache, with the warm calls and twice them as the
 * calls an edit pays back over), with micro-compaction on every call, and with compaction at the trigger only. Names are stable (they
 * name the policy files) and say the settings.
 */
export function tuneCandidates(window: number, usage: readonly ToolUsage[], tokenizer: TokenizerName, grid: GridContext): TuneCandidate[] {
  const needed = neededTools(usage);
  const exclusions = needed.length > 0 ? [[], needed] : [[]];
  const out: TuneCandidate[] = [];
  for (const fraction of TRIGGERS) {
    const trigger = Math.max(1, Math.round(fraction * window));
    for (const keep of KEEPS) {
      for (const exclude of exclusions) {
        for (const inputs of [false, true]) {
          const name = `clear@${fraction}-keep${keep}${exclude.length > 0 ? '-exclude' : ''}${inputs ? '-inputs' : ''}`;
          out.push({ name, runtime: 'anthropic', edit: clearing(trigger, keep, exclude, inputs, null) });
        }
      }
      out.push({
        name: `clear@${fraction}-keep${keep}-at-least`,
        runtime: 'anthropic',
        edit: clearing(trigger, keep, [], false, breakEvenClear(trigger, grid)),
      });
    }
  }
  // The manager counts with the archive's tokenizer, so its trigger fires where the replay's does.
  const counting = tokenizer === 'o200k_base' ? {} : { tokenizer };
  const cacheAware = { window, cache: grid.cache, expectedCalls: grid.expectedCalls, ...counting };
  out.push({ name: 'tcompact-cache', runtime: 'tcompact', options: cacheAware });
  out.push({ name: 'tcompact-cache-tail3', runtime: 'tcompact', options: { ...cacheAware, editTail: { results: 3, messages: 3 } } });
  out.push({ name: 'tcompact-cache-tail10', runtime: 'tcompact', options: { ...cacheAware, editTail: { results: 10, messages: 10 } } });
  // No cache named: each session's manager weighs its edits against the cache that session is billed on (its TTL), as
  // an agent sets its own provider's; in an archive of several caches the grid's one misjudges the others' sessions.
  const { cache: _grid, ...ownCache } = cacheAware;
  out.push({ name: 'tcompact-own-cache', runtime: 'tcompact', options: ownCache });
  // The frontier's sweeps pay back over the calls left in the session, often more than one warm run of the cache.
  out.push({ name: 'tcompact-own-cache-payback2', runtime: 'tcompact', options: { ...ownCache, expectedCalls: 2 * grid.expectedCalls } });
  out.push({ name: 'tcompact-micro-every-call', runtime: 'tcompact', options: { window, micro: ['mask-observations'], edits: [], ...counting } });
  out.push({ name: 'tcompact-at-trigger', runtime: 'tcompact', options: { window, micro: [], edits: [], ...counting } });
  return out;
}
