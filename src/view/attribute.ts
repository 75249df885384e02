import { type Message, isAssistant, isTool } from '../model/message.js';
import { NO_RESULT_TEXT } from '../model/repair.js';

/*
 * Which strategy made a change that left no placeholder, read from the change itself: only strip-reasoning removes
 * reasoning, only sanitize adds a missing result or drops a result whose call is absent or answered twice, and a call
 * removed with its result is dedup-tools' or strip-tool-results' doing. `steps`, the run's steps, narrows the
 * candidates to those that ran; what is left is joined with " or ".
 */

const CALL_REMOVERS = ['dedup-tools', 'strip-tool-results'];

function named(candidates: readonly string[], steps: readonly string[]): string {
  const ran = candidates.filter((c) => steps.includes(c));
  return (ran.length > 0 ? ran : candidates).join(' or ');
}

const hasReasoning = (m: Message): boolean => isAssistant(m) && (m.reasoning_content !== undefined || 'redacted_thinking_blocks' in m);
const callCount = (m: Message): number => (isAssistant(m) ? (m.tool_calls?.length ?? 0) : 0);

/** The strategies that changed `before` into `after` (one message for another, no placeholder); undefined when unknown. */
export function changeStrategy(before: Message, after: Message, steps: readonly string[]): string | undefined {
  const names: string[] = [];
  if (hasReasoning(before) && !hasReasoning(after)) names.push('strip-reasoning');
  if (callCount(after) < callCount(before)) names.push(named(CALL_REMOVERS, steps));
  return names.length > 0 ? names.join(' + ') : undefined;
}

/** The call ids of the original and of the compacted transcript. */
export interface CallIds {
  original: ReadonlySet<string>;
  compacted: ReadonlySet<string>;
}

/** The strategy that removed `before` outright; undefined when unknown. */
export function removalStrategy(before: Message, calls: CallIds, steps: readonly string[]): string | undefined {
  if (isTool(before)) {
    const orphan = !calls.original.has(before.tool_call_id) || calls.compacted.has(before.tool_call_id);
    return orphan ? 'sanitize' : named(CALL_REMOVERS, steps);
  }
  if (callCount(before) > 0) return `${hasReasoning(before) ? 'strip-reasoning + ' : ''}${named(CALL_REMOVERS, steps)}`;
  return hasReasoning(before) ? 'strip-reasoning' : undefined;
}

/** The strategy that added `after` (no original stands behind it); undefined when unknown. */
export function additionStrategy(after: Message): string | undefined {
  return isTool(after) && after.content === NO_RESULT_TEXT ? 'sanitize' : undefined;
}

/** Every call id of these messages. */
export function callIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (isAssistant(m)) for (const c of m.tool_calls ?? []) ids.add(c.id);
  return ids;
}
