import type { Message } from '../../model/message.js';
import { timestampMs } from '../../model/recorded.js';

/**
 * When each call was made. A call goes out right after the last message of its prompt, so it takes the latest
 * timestamp recorded up to that message (the reply's own for a first call with none before it), never earlier than
 * the previous call. A transcript without any timestamp gets a fixed gap between calls.
 */
export class CallClock {
  private readonly timed: boolean;
  private latest: number | undefined;
  private lastCall: number | undefined;

  constructor(
    messages: readonly Message[],
    private readonly gapMs: number,
  ) {
    this.timed = messages.some((m) => timestampMs(m) !== undefined);
  }

  /** Takes the messages in order; returns the time of a call made before `message` (meaningful for replies). */
  next(message: Message): number {
    const own = timestampMs(message);
    let at: number;
    if (message.role !== 'assistant') at = this.lastCall ?? 0;
    else if (!this.timed) at = this.lastCall === undefined ? 0 : this.lastCall + this.gapMs;
    else at = Math.max(this.latest ?? own ?? 0, this.lastCall ?? Number.NEGATIVE_INFINITY);
    if (message.role === 'assistant') this.lastCall = at;
    if (own !== undefined) this.latest = this.latest === undefined ? own : Math.max(this.latest, own);
    return at;
  }
}
