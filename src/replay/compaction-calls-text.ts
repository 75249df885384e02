import { int } from '../report/format.js';
import type { CompactionCalls } from './policy-run.js';

/**
 * A policy's compaction calls in the totals, as a table cell: their cost (number of calls), and where the source's
 * summary calls that the totals leave out are counted, rather than a zero when all of them are counted elsewhere.
 */
export function compactionCallsText(c: CompactionCalls, usd: (dollars: number) => string): string {
  const tally = (t: { calls: number; cost: number }) => `${int(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}, ${usd(t.cost)}`;
  const parts: string[] = [];
  if (c.calls > 0 || (!c.inOwnTranscripts && !c.replacedInOwnTranscripts)) parts.push(`${usd(c.cost)} (${int(c.calls)})`);
  if (c.inOwnTranscripts) parts.push(`in their own transcripts: ${tally(c.inOwnTranscripts)}`);
  if (c.replacedInOwnTranscripts) parts.push(`replaced, not billed: ${tally(c.replacedInOwnTranscripts)}`);
  return parts.join('; ');
}
