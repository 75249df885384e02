import { recordedCall } from '../model/recorded.js';
import type { Transcript } from '../model/transcript.js';
import { sourceCompactionPoints } from './policies/source-points.js';
import type { UnloggedSpan } from './billing/token-ratio.js';

/**
 * What a client sends right after its own compaction beside the summary, which the log does not hold: Claude Code
 * re-sends up to five recently read files, the plan file, invoked skills, tool and MCP announcements and the
 * SessionStart hooks' output (anthropics/claude-code#43600, #43603), logged only from 2.1.128 on as `attachment`
 * records (which the reader reads as messages: such a point is left alone). The replay of the source's compactions is short of it by a near-constant step from
 * the first call after each point until the next one.
 *
 * The step is estimated from the record: at the first call after each point with a recorded summary, the recorded
 * prompt minus the replayed one (`replayedPrompt`, the source replay's prompt at that reply, without any step), when
 * positive. It is carried with the summary, as an unlogged span, until the first call after the next point: a policy
 * that keeps the summary bills it, one that never compacts where the source did does not.
 */
export function postCompactionSteps(transcript: Transcript, replayedPrompt: ReadonlyMap<number, number>): UnloggedSpan[] {
  const points = sourceCompactionPoints(transcript);
  const spans: UnloggedSpan[] = [];
  for (const [k, point] of points.entries()) {
    // What the source logged of its re-sends (Claude Code's `attachment` records, read as messages) is sent already.
    if (!point.summary || transcript.messages.slice(point.index, point.callIndex).some((m) => typeof m.attachment === 'string')) continue;
    const at = transcript.messages.indexOf(point.summary);
    const call = recordedCall(transcript.messages[point.callIndex]);
    const replayed = replayedPrompt.get(point.callIndex);
    if (at < 0 || !call || replayed === undefined) continue;
    const step = call.uncached + call.written + call.read - replayed;
    if (step <= 0) continue;
    const next = points[k + 1];
    spans.push({ at, tokens: Math.round(step), from: point.callIndex, ...(next ? { until: next.callIndex } : {}) });
  }
  return spans;
}

/** Whether the replay of a transcript is short of what its source re-sent after compacting (see postCompactionSteps). */
export const sendsUnloggedAfterCompaction = (transcript: Transcript): boolean => {
  const source = transcript.metadata?.source;
  return typeof source === 'object' && source !== null && (source as { format?: unknown }).format === 'claude-code';
};
