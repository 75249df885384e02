import type { CacheRules } from '../../../provider/cache-rules.js';
import type { Prices } from '../../billing/prices.js';
import type { PlannedCompaction, TranscriptPlan } from './plan.js';

/** What the schedule's prompts carry and cost besides the plan's messages. */
export interface ScheduleCosts {
  window: number;
  /** Tokens before the first message: tool definitions and the unrecorded base prompt. */
  base: number;
  cache: CacheRules;
  /** The prices of call `t`: its model's. */
  prices: (call: number) => Prices;
  /** Tokens of the base prefix warm from outside at call `t` (a recorded read). */
  warmBase: (call: number) => number;
}

/** The edit kind one schedule is made of: clear every tool use but the last `keep`, with its input or not. */
export interface EditKind {
  keep: number;
  inputs: boolean;
}

/** The prompt of one call: after the compaction made at call `segment` (-1: none), tool uses up to `cleared` cleared. */
export interface PlannedPrompt {
  segment: number;
  cleared: number;
}

export interface Schedule {
  kind: EditKind;
  prompts: PlannedPrompt[];
  /** The input cost with caching the schedule was planned at, in US dollars (the output, the same for every schedule, left out). */
  inputCost: number;
  /** Calls whose prompt does not fit the window even so. */
  overWindow: number;
  /**
   * With a penalty: the least of input cost + penalties (+ OVER_WINDOW per call over the window) the program found,
   * the relaxed optimum; and the penalties of the schedule's own edits. Absent without a penalty.
   */
  relaxed?: { objective: number; penalty: number };
}

/**
 * A price on an edit, added to the cost of the transition that makes it: the edit at call `t` that leaves segment
 * `segment` (-1: none, else the compaction's call) with tool uses up to `cleared` cleared. Charged only where the prompt
 * changes (a clearing whose uses have neither a result nor, for this kind, an input changes nothing).
 */
export type EditPenalty = (t: number, segment: number, cleared: number) => number;

/** A call over the window costs this much more than any bill: the schedule fits the window wherever it can. */
export const OVER_WINDOW = 1e6;

interface Segment {
  /** Tokens of the kept leading messages and the summary (0 without a compaction). */
  head: number;
  /** First replayed message after the head. */
  tail: number;
  firstUse: number;
}

/**
 * The hindsight-optimal schedule of one transcript for one edit kind: at each call, keep the prompt, clear the tool
 * uses older than the last `keep` (and their inputs), or compact (`compactions[t]`, then clear or not), so that every
 * prompt fits the window and the input billed with caching is least. Between edits a prompt only grows at its end, so
 * this is a dynamic program over calls whose state is the last compaction and the last clearing: like lot-sizing, the
 * rewrite after an edit is the setup cost and the stale tokens read at every later call the holding cost. O(N^3) time
 * in N calls at worst (O(N^2) without compactions), O(N^2) memory; a transition is O(1) from prefix sums.
 *
 * The cache model is the replay's (billing/prompt-cache.ts), exact for a transcript whose calls share one cache: an
 * unchanged prompt reads its previous prompt while it lives; after an edit, Anthropic's breakpoints find an earlier
 * prompt's entry only within their lookback before the edit, else the system mark; OpenAI's prefix cache and the ideal
 * cache read the prefix before the first change; a gap over the TTL leaves only a warm base. With several models
 * (caches) the prefix read after an edit made since a model's last call is taken to be the system prompt's.
 */
export function planSchedule(
  plan: TranscriptPlan,
  kind: EditKind,
  compactions: readonly (PlannedCompaction | undefined)[],
  costs: ScheduleCosts,
  penalty?: EditPenalty,
): Schedule {
  const { calls, uses, cumTokens, cumBlocks } = plan;
  const n = calls.length;
  if (n === 0) return { kind, prompts: [], inputCost: 0, overWindow: 0, ...(penalty ? { relaxed: { objective: 0, penalty: 0 } } : {}) };
  // Uses [0, u) with a result in the prompt: a clearing over none of them (and no input) leaves the prompt as it was.
  const withResult = [0];
  for (const u of uses) withResult.push(withResult[withResult.length - 1] + (u.result >= 0 ? 1 : 0));
  const changes = (from: number, to: number) => to > from && (kind.inputs || withResult[to] > withResult[from]);
  const { cache, base, window } = costs;
  const perTokenOf = calls.map((_, t) => {
    const prices = costs.prices(t);
    return { read: prices.cached / 1e6, write: prices.cacheWrite / 1e6, input: prices.input / 1e6 };
  });
  const ttlMs = cache.ttlSeconds === null ? Number.POSITIVE_INFINITY : cache.ttlSeconds * 1000;
  const savings = [0];
  for (const u of uses) savings.push(savings[savings.length - 1] + u.resultSaving + (kind.inputs ? u.inputSaving : 0));
  const frontier = (t: number) => Math.max(0, calls[t].uses - kind.keep);
  // Each call's cache's previous call, and the one after it.
  const lastOf = new Map<string, number>();
  const previous = calls.map((c, t) => {
    const p = lastOf.get(c.cacheKey) ?? -1;
    lastOf.set(c.cacheKey, t);
    return p;
  });
  const following = calls.map(() => -1);
  previous.forEach((p, t) => {
    if (p >= 0) following[p] = t;
  });
  const reply = (t: number) => calls[t].reply;
  const segments = new Map<number, Segment>([[-1, { head: 0, tail: 0, firstUse: 0 }]]);
  const prompt = (seg: Segment, cleared: number, t: number) =>
    base + seg.head + cumTokens[reply(t)] - cumTokens[seg.tail] - (cleared > seg.firstUse ? savings[cleared] - savings[seg.firstUse] : 0);
  const clearedOf = (seg: Segment, s: number) => (s < 0 ? seg.firstUse : Math.max(seg.firstUse, frontier(s)));
  const lives = (t: number, usedAt: number) => calls[t].atMs - usedAt <= ttlMs;

  /** Content blocks between the end of call a's prompt and the end of call t's, with uses [seg.firstUse, cleared) cleared. */
  const blocksBetween = (a: number, t: number, seg: Segment, cleared: number) => {
    let blocks = cumBlocks[reply(t)] - cumBlocks[reply(a)];
    for (let u = calls[t].uses - 1; u >= 0 && uses[u].call >= reply(a); u--) {
      if (u >= seg.firstUse && u < cleared && uses[u].result >= reply(a) && uses[u].result < reply(t)) blocks -= uses[u].resultBlocksSaving;
    }
    return blocks;
  };

  /**
   * Anthropic: the longest entry that call t finds within the lookback before its last mark: the end of an earlier
   * prompt of the same cache whose content is unchanged (no edit since it, or no tool use of the segment before it,
   * and for an edit at t, before `upTo`), alive, and at least the minimum; undefined when there is none. An entry is
   * alive from its last use: the call that wrote it, or a later one that read it (the next call, or, for an entry no
   * clearing reaches, any call within the lookback after it).
   */
  const breakpointHit = (t: number, seg: Segment, c: number, s: number, cleared: number, upTo: number): number | undefined => {
    const min = cache.minTokens;
    for (let a = previous[t]; a >= 0; a = previous[a]) {
      if (blocksBetween(a, t, seg, cleared) > cache.lookbackBlocks) return undefined;
      const untouched = c <= a && s <= a;
      if (!untouched && !(c <= a && calls[a].uses <= seg.firstUse)) continue;
      if (reply(a) > upTo) continue;
      const size = prompt(seg, untouched ? clearedOf(seg, s) : seg.firstUse, a);
      if (size < min) return undefined;
      let usedAt = calls[a].atMs;
      for (
        let b = following[a];
        b >= 0 && b < t && lives(b, usedAt) && blocksBetween(a, b, seg, cleared) <= cache.lookbackBlocks;
        b = untouched ? -1 : following[b]
      ) {
        usedAt = calls[b].atMs;
      }
      return lives(t, usedAt) ? size : undefined;
    }
    return undefined;
  };

  /**
   * The input cost of call t in state (c, s) with uses up to `cleared` cleared in segment `seg`; `edit`: the first
   * message an edit at t changed (its index in the replayed messages), the tokens of the prompt before it, and the size
   * of the cache's previous prompt.
   */
  const callCost = (t: number, seg: Segment, c: number, s: number, cleared: number, edit?: { at: number; before: number; previous: number }) => {
    const now = prompt(seg, cleared, t);
    const over = now > window ? OVER_WINDOW : 0;
    const perToken = perTokenOf[t];
    const p = previous[t];
    const warmOwn = p >= 0 && lives(t, calls[p].atMs);
    const warm = Math.min(costs.warmBase(t), base);
    const unchanged = edit === undefined && p >= 0 && Math.max(c, s) <= p;
    // The prefix before the first change since the cache's last call: the whole previous prompt when nothing changed.
    const kept = p < 0 ? 0 : unchanged ? prompt(seg, cleared, p) : edit !== undefined && p === t - 1 ? edit.before : base + seg.head;
    switch (cache.kind) {
      case 'off':
        return now * perToken.input + over;
      case 'previous': {
        const read = p < 0 ? warm : Math.min(kept, now);
        return read * perToken.read + (now - read) * perToken.write + over;
      }
      case 'prefix': {
        const min = cache.minTokens;
        const previousSize = !warmOwn ? 0 : (edit?.previous ?? prompt(seg, clearedOf(seg, s), p));
        const longest = Math.max(warm, previousSize >= min ? Math.min(kept, now) : 0);
        const read = longest >= min && min > 0 ? longest - ((longest - min) % cache.step) : 0;
        return read * perToken.read + (now - read) * perToken.input + over;
      }
      case 'breakpoint': {
        const min = cache.minTokens;
        const hit = p < 0 ? undefined : breakpointHit(t, seg, c, s, cleared, edit === undefined ? Number.POSITIVE_INFINITY : edit.at);
        const read = hit ?? ((warmOwn && base >= min) || (warm > 0 && warm === base) ? base : warm);
        const written = now >= min ? now - read : 0;
        return read * perToken.read + written * perToken.write + (now - read - written) * perToken.input + over;
      }
    }
  };

  /** The first message a clearing from `from` changes, and the tokens of the prompt before it. */
  const editFrom = (seg: Segment, from: number, t: number) => {
    const first = uses[from];
    const at = kind.inputs ? first.call : first.result >= 0 ? first.result : reply(t);
    let saved = from > seg.firstUse ? savings[from] - savings[seg.firstUse] : 0;
    // Earlier uses of the same message may have a result or a cleared input at or after that message.
    for (let u = from - 1; u >= seg.firstUse && uses[u].call === first.call; u--) {
      if (uses[u].result >= at) saved -= uses[u].resultSaving;
      if (kind.inputs) saved -= uses[u].inputSaving;
    }
    return { at, before: base + seg.head + cumTokens[at] - cumTokens[seg.tail] - saved };
  };

  // values.get(c)[s + 1]: the least cost of the calls so far, ending with the last compaction at c and the last clearing at s.
  const values = new Map<number, Float64Array>([[-1, new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY)]]);
  values.get(-1)![0] = 0;
  // The choices made at call t: the state a clearing at t came from (per segment), and the state a compaction came from.
  const clearedFrom: Map<number, number>[] = [];
  const compactedFrom: ([number, number] | undefined)[] = [];

  for (let t = 0; t < n; t++) {
    const choices = new Map<number, number>();
    let best = Number.POSITIVE_INFINITY;
    let bestState: [number, number] | undefined;
    for (const [c, vals] of values) {
      const seg = segments.get(c)!;
      const target = Math.max(seg.firstUse, frontier(t));
      let editValue = Number.POSITIVE_INFINITY;
      let editSource = -2;
      let price: number | undefined;
      for (let i = 0; i <= t; i++) {
        const v = vals[i];
        if (v === Number.POSITIVE_INFINITY) continue;
        const s = i - 1;
        if (v < best) {
          best = v;
          bestState = [c, s];
        }
        const cleared = clearedOf(seg, s);
        vals[i] = v + callCost(t, seg, c, s, cleared);
        if (target > cleared) {
          const charged = penalty && changes(cleared, target) ? (price ??= penalty(t, c, target)) : 0;
          const cost =
            v + charged + callCost(t, seg, c, s, target, { ...editFrom(seg, cleared, t), previous: previous[t] < 0 ? 0 : prompt(seg, cleared, previous[t]) });
          if (cost < editValue) {
            editValue = cost;
            editSource = s;
          }
        }
      }
      if (editSource > -2) {
        vals[t + 1] = editValue;
        choices.set(c, editSource);
      }
    }
    clearedFrom.push(choices);
    const compaction = compactions[t];
    if (compaction && bestState) {
      const seg: Segment = { head: cumTokens[plan.leadingSystem] + compaction.summaryTokens, tail: compaction.tail, firstUse: compaction.firstUse };
      segments.set(t, seg);
      const vals = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
      const [bc, bs] = bestState;
      const from = segments.get(bc)!;
      const edit = {
        at: plan.leadingSystem,
        before: base + cumTokens[plan.leadingSystem],
        previous: previous[t] < 0 ? 0 : prompt(from, clearedOf(from, bs), previous[t]),
      };
      vals[0] = best + (penalty?.(t, t, seg.firstUse) ?? 0) + callCost(t, seg, t, t, seg.firstUse, edit);
      const target = Math.max(seg.firstUse, frontier(t));
      if (target > seg.firstUse) vals[t + 1] = best + (penalty?.(t, t, target) ?? 0) + callCost(t, seg, t, t, target, edit);
      values.set(t, vals);
      compactedFrom.push(bestState);
    } else compactedFrom.push(undefined);
  }

  let end: [number, number] = [-1, -1];
  let least = Number.POSITIVE_INFINITY;
  for (const [c, vals] of values) {
    for (let i = 0; i <= n; i++) {
      if (vals[i] < least) {
        least = vals[i];
        end = [c, i - 1];
      }
    }
  }
  const prompts: PlannedPrompt[] = new Array(n);
  let [c, s] = end;
  let charged = 0;
  for (let t = n - 1; t >= 0; t--) {
    const seg = segments.get(c)!;
    const cleared = clearedOf(seg, s);
    prompts[t] = { segment: c, cleared };
    if (c === t) {
      if (penalty) charged += penalty(t, t, cleared);
      [c, s] = compactedFrom[t]!;
    } else if (s === t) {
      s = clearedFrom[t].get(c)!;
      if (penalty && changes(clearedOf(seg, s), cleared)) charged += penalty(t, c, cleared);
    }
  }
  const overWindow = Math.floor((least - charged) / OVER_WINDOW);
  return {
    kind,
    prompts,
    inputCost: least - charged - overWindow * OVER_WINDOW,
    overWindow,
    ...(penalty ? { relaxed: { objective: least, penalty: charged } } : {}),
  };
}
