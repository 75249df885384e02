import type { ContextManagerOptionsInput } from '../context/options.js';
import { AnthropicContextManagementSchema, type ClearToolUses } from '../replay/policies/runtime/anthropic-context-editing.js';
import type { TokenizerName } from '../tokens/tokenizer.js';
import type { ToolUsage } from './tool-usage.js';

/** A setting `tune` replays: Anthropic's context editing, or tcompact's own ContextManager. */
export type TuneCandidate =
  { name: string; runtime: 'anthropic'; edit: ClearToolUses } | { name: string; runtime: 'tcompact'; options: ContextManagerOptionsInput };

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
 * The grid: Anthropic's clearing at each trigger, keeping 3 or 10 tool uses, with no tool excluded or the needed ones,
 * clearing results only or inputs too; and tcompact's ContextManager with micro-compaction on and off. Names are stable
 * (they name the policy files) and say the settings.
 */
export function tuneCandidates(window: number, usage: readonly ToolUsage[], tokenizer: TokenizerName = 'o200k_base'): TuneCandidate[] {
  const needed = neededTools(usage);
  const exclusions = needed.length > 0 ? [[], needed] : [[]];
  const out: TuneCandidate[] = [];
  for (const fraction of TRIGGERS) {
    for (const keep of KEEPS) {
      for (const exclude of exclusions) {
        for (const inputs of [false, true]) {
          const trigger = Math.max(1, Math.round(fraction * window));
          const edit = AnthropicContextManagementSchema.parse({
            edits: [
              {
                type: 'clear_tool_uses_20250919',
                trigger: { type: 'input_tokens', value: trigger },
                keep: { type: 'tool_uses', value: keep },
                exclude_tools: exclude,
                clear_tool_inputs: inputs,
              },
            ],
          }).edits[0];
          const name = `clear@${fraction}-keep${keep}${exclude.length > 0 ? '-exclude' : ''}${inputs ? '-inputs' : ''}`;
          out.push({ name, runtime: 'anthropic', edit });
        }
      }
    }
  }
  // The manager counts with the archive's tokenizer, so its trigger fires where the replay's does.
  const counting = tokenizer === 'o200k_base' ? {} : { tokenizer };
  out.push({ name: 'tcompact-micro', runtime: 'tcompact', options: { window, micro: ['mask-observations'], ...counting } });
  out.push({ name: 'tcompact-no-micro', runtime: 'tcompact', options: { window, micro: [], ...counting } });
  return out;
}
