import { createHash } from 'node:crypto';

/**
 * The half of the sessions a tuning step never looks at: the first byte of the SHA-256 of the session id is odd. A
 * subagent (`session:agent`) goes with its session. Fixed by the id alone, so the split is chosen before any figure.
 */
export function isHeldBack(transcriptId: string): boolean {
  return createHash('sha256').update(transcriptId.split(':')[0]).digest()[0] % 2 === 1;
}
