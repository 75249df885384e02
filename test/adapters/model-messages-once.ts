/** The AI SDK loop's expected prompts, converted run by run (see RunMemo in session-loop.ts). */
import type { ModelMessage } from 'ai';
import { toModelMessage } from '../../src/adapters/ai-sdk/model-messages.js';
import { indexCalls } from '../../src/adapters/call-index.js';
import { type Message, type ToolCall, isKnownRole, isTool } from '../../src/model/message.js';
import { groupToolResults } from '../helpers/runtime-messages.js';
import { RunMemo } from './session-loop.js';

/**
 * The AI SDK's messages of prompts as its steps hold them (`groupToolResults(toModelMessages(prompt))`), each run of a
 * message and the tool results after it converted once, and again only where the names the prompt gives its results'
 * calls changed (a compaction that dropped the call). One per session.
 */
export function modelMessagesOnce(): (prompt: readonly Message[]) => ModelMessage[] {
  let calls = new Map<string, ToolCall>();
  const nameOf = (id: string) => calls.get(id)?.function.name ?? '';
  const runs = new RunMemo(
    // A message of a known role other than tool is one ModelMessage of its own, which joins nothing before it.
    (m) => isKnownRole(m.role) && m.role !== 'tool',
    (run) => groupToolResults(run.flatMap((m) => toModelMessage(m, nameOf))),
    (run) => run.map((m) => (isTool(m) ? nameOf(m.tool_call_id) : '')).join('\n'),
  );
  return (prompt) => {
    calls = indexCalls(prompt).calls;
    return runs.of(prompt);
  };
}
