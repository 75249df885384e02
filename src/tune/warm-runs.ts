import { isAssistant } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { CACHE_RULES, type CacheModelName } from '../provider/cache-rules.js';
import { CallClock } from '../replay/billing/call-clock.js';

/**
 * How long an archive's prompt caches stay warm, in calls: over the runs of calls no gap over the TTL interrupts, the
 * calls expected after a call drawn at random before the cache goes cold (a run of r calls gives its k-th call r - k
 * more). What an edit's savings are multiplied by before the cache forgets them.
 */
export class WarmRuns {
  /** By cache model: calls, and calls after a call before the cache went cold. */
  private readonly tally = new Map<CacheModelName, { calls: number; after: number }>();

  constructor(private readonly callGapSeconds: number) {}

  /** A transcript whose calls are billed on `cache`. */
  add(transcript: Transcript, cache: CacheModelName): void {
    const ttl = CACHE_RULES[cache].ttlSeconds;
    let t = this.tally.get(cache);
    if (!t) this.tally.set(cache, (t = { calls: 0, after: 0 }));
    const tally = t;
    const clock = new CallClock(transcript.messages, this.callGapSeconds * 1000);
    let run = 0;
    let last: number | undefined;
    const close = () => {
      tally.calls += run;
      tally.after += (run * (run - 1)) / 2;
    };
    for (const m of transcript.messages) {
      const at = clock.next(m);
      if (!isAssistant(m)) continue;
      if (last !== undefined && ttl !== null && at - last > ttl * 1000) {
        close();
        run = 0;
      }
      run++;
      last = at;
    }
    close();
  }

  /** The calls expected after a call while `cache` is warm, to a tenth; 1 without calls on that cache. */
  expectedCalls(cache: CacheModelName): number {
    const t = this.tally.get(cache);
    return t === undefined || t.calls === 0 ? 1 : Math.max(1, Math.round((10 * t.after) / t.calls) / 10);
  }
}
