import { type HindsightProbe, hindsightProbesAt, scoreHindsight } from '../../../retention/hindsight.js';
import { viewOfMessages } from '../../../retention/model-view.js';
import type { PolicyEnv } from '../policy.js';
import { type ScheduleSpace, compactionsOf, scheduleCosts } from './optimal-policy.js';
import type { PlannedCompaction, TranscriptPlan } from './plan.js';
import { type EditKind, type EditPenalty, OVER_WINDOW, type Schedule, planSchedule } from './schedule.js';

/** The recall floors tune draws the frontier at. */
export const RECALL_FLOORS: readonly number[] = [0.8, 0.9, 0.95, 0.99];

/** Facts needed again at edits (hindsight probes) and those the edited prompts kept. */
export interface EditRecall {
  probes: number;
  retained: number;
}

/**
 * The hindsight the replay scores at each edit a schedule may make, computed once per prompt. The replay scores an edit
 * where the policy's prompt differs from the one it held (transcript-replay.ts, onCompaction): the probes of the call's
 * reply (the facts of before it the session used again after it), each retained or not by the whole edited prompt. A
 * schedule's prompt at an edit is fixed by the call, the segment and the clearing it leaves, so the count splits over
 * the program's edit transitions exactly.
 */
export class EditHindsight {
  private readonly memo = new Map<string, EditRecall>();
  private readonly probesAt: (messageIndex: number) => HindsightProbe[];
  private readonly root: string | undefined;

  constructor(
    private readonly plan: TranscriptPlan,
    private readonly compactions: readonly (PlannedCompaction | undefined)[],
    env: Pick<PolicyEnv, 'transcript' | 'hindsightAt'>,
  ) {
    this.probesAt = env.hindsightAt ?? hindsightProbesAt(env.transcript?.messages ?? plan.messages);
    const cwd = env.transcript?.metadata?.cwd;
    this.root = typeof cwd === 'string' ? cwd : undefined;
  }

  /** The recall of an edit at call `t` that leaves segment `segment` with uses up to `cleared` cleared. */
  at(inputs: boolean, t: number, segment: number, cleared: number): EditRecall {
    const key = `${inputs ? 1 : 0}:${t}:${segment}:${cleared}`;
    let out = this.memo.get(key);
    if (!out) {
      const probes = this.probesAt(this.plan.calls[t].messageIndex);
      if (probes.length === 0) out = { probes: 0, retained: 0 };
      else {
        const prompt = this.plan.promptAt(this.compactions, inputs, t, segment, cleared);
        const { overall } = scoreHindsight(probes, viewOfMessages(prompt), this.root === undefined ? {} : { root: this.root });
        out = { probes: overall.probes, retained: overall.retained };
      }
      this.memo.set(key, out);
    }
    return out;
  }

  /** What a schedule's edits keep, as the replay counts it: at each call whose prompt changes. */
  ofSchedule(schedule: Schedule): EditRecall {
    const total = { probes: 0, retained: 0 };
    let previous = { segment: -1, cleared: 0 };
    schedule.prompts.forEach((p, t) => {
      const compacted = p.segment !== previous.segment;
      if (compacted || changes(this.plan, schedule.kind, previous.cleared, p.cleared)) {
        const r = this.at(schedule.kind.inputs, t, p.segment, p.cleared);
        total.probes += r.probes;
        total.retained += r.retained;
      }
      previous = p;
    });
    return total;
  }
}

/** Whether clearing uses [from, to) changes the prompt: some has a result, or inputs are cleared. */
function changes(plan: TranscriptPlan, kind: EditKind, from: number, to: number): boolean {
  if (to <= from) return false;
  if (kind.inputs) return true;
  for (let u = from; u < to; u++) if (plan.uses[u].result >= 0) return true;
  return false;
}

/** One evaluation of the relaxed program: its price per fact lost and its least objective. */
export interface FrontierPoint {
  lambda: number;
  /** The relaxed optimum: input cost + λ × (floor × probes − retained) over the edits, + OVER_WINDOW per call over the window. */
  relaxed: number;
}

/** The best schedule found at a recall floor, and the bound no schedule of the same edits can beat there. */
export interface FrontierPlan {
  floor: number;
  schedule: Schedule;
  recall: EditRecall;
  /** Its recall meets the floor (false: none found did, and `schedule` is the one that keeps most). */
  feasible: boolean;
  /**
   * A lower bound on the input cost with caching of any schedule of the same edit kinds whose recall is at least the
   * floor and that has no more calls over the window than `schedule`: max over λ of the relaxed optimum, less
   * OVER_WINDOW per call over the window of `schedule`.
   */
  bound: number;
  points: FrontierPoint[];
}

/** Far above what an edit saves (cents), far below OVER_WINDOW over any session's probes: the window still comes first. */
export const LAMBDA_MAX = 10;
/**
 * Prices tried between 0 and LAMBDA_MAX at most, each a program per edit kind: the search below reaches the dual's
 * maximum within this many on the shared corpus's sessions (tune solves four floors per transcript).
 */
const CUTS = 8;
/** Programs of one edit kind at most spent raising the bound of the kind that holds it down (see frontierSchedule). */
const KIND_CUTS = 8;
/** The relaxed optimum is taken as the dual's maximum once it is within this share of the two lines' meeting point. */
const CONVERGED = 1e-4;

const recallOf = (r: EditRecall) => (r.probes === 0 ? 1 : r.retained / r.probes);
const meets = (r: EditRecall, floor: number) => r.retained >= floor * r.probes - 1e-9;
const converged = (relaxed: number, top: number) => relaxed >= top - CONVERGED * Math.max(1, Math.abs(top));

/** A schedule as a line of the dual: its cost (with OVER_WINDOW per call over the window) and its constraint's value. */
interface Cut {
  lambda: number;
  cost: number;
  /** floor × probes − retained at its edits: the slope of its objective in λ. */
  slope: number;
  /** The relaxed optimum at `lambda`: the least of cost + λ × slope over the schedules. */
  relaxed: number;
}

/**
 * The next price of a cutting-plane search between the dearest line under the floor (slope above 0) and the cheapest
 * meeting it: where they meet, unless that is no price between them or the dual there is already on both lines.
 */
function nextPrice(under: Cut, meeting: Cut): number | undefined {
  if (!(meeting.slope <= 1e-9 && under.slope > meeting.slope)) return undefined;
  const meet = (meeting.cost - under.cost) / (under.slope - meeting.slope);
  return meet > under.lambda && meet < meeting.lambda ? meet : undefined;
}

/** One edit kind's own dual: its cuts so far, and the search's two ends. */
class KindDual {
  best = Number.NEGATIVE_INFINITY;
  under: Cut | undefined;
  meeting: Cut | undefined;

  add(cut: Cut): void {
    this.best = Math.max(this.best, cut.relaxed);
    if (cut.slope > 1e-9) {
      if (!this.under || cut.lambda > this.under.lambda) this.under = cut;
    } else if (!this.meeting || cut.lambda < this.meeting.lambda) this.meeting = cut;
  }

  /** The next price worth trying, or undefined once its maximum is reached (or lies outside [0, LAMBDA_MAX]). */
  next(): number | undefined {
    if (!this.under || !this.meeting) return undefined;
    const meet = nextPrice(this.under, this.meeting);
    if (meet === undefined || converged(this.best, this.under.cost + meet * this.under.slope)) return undefined;
    return meet;
  }
}

/**
 * The schedule of `space` with recall at least `floor`, by Lagrangian relaxation: each fact needed again at an edit
 * is priced λ × floor, each kept earns back λ, so that a schedule's penalties sum to λ × (floor × probes − retained),
 * positive exactly where its recall is under the floor. The program of schedule.ts solves cost + penalties for each λ
 * tried; every relaxed optimum is a lower bound on the constrained optimum (a schedule meeting the floor has penalties
 * ≤ 0). The dual, λ ↦ relaxed optimum, is concave and piecewise linear, each piece a schedule's line cost + λ × slope,
 * so its maximum is found by cutting planes (Kelley's method in one dimension): from a schedule under the floor (slope
 * above 0) and one meeting it, the next λ tried is where their lines meet; when the relaxed optimum there is on both
 * lines the maximum is reached, else the schedule found there replaces the one on its side. Unlike a bisection, each
 * price tried is where the two schedules cost the same, so the schedules found lie next to the floor, and the bound
 * is the dual's maximum, not a point near it. λ = 0 and LAMBDA_MAX are always evaluated, so the points cover the same
 * range for every transcript (see archiveBound).
 *
 * A schedule is made of one edit kind, so the constrained optimum is the least of each kind's own, and each kind's own
 * dual bounds its optimum: the least over kinds of each kind's dual maximum is a bound too, and never below the dual
 * of the kinds together (whose relaxed optimum at each λ is the least of the kinds'). It is much higher where the
 * kinds' schedules next to the floor are far apart: one kind's edits cheap but under the floor, another's meeting it
 * but dear, the joint dual meets halfway between them. So after the joint search, the search goes on in the kind
 * whose dual maximum so far is least, one program at a time, until that kind's maximum is reached; the schedules it
 * finds that meet the floor are candidates too.
 */
export function frontierSchedule(
  plan: TranscriptPlan,
  env: PolicyEnv,
  space: ScheduleSpace,
  floor: number,
  prepared?: Prepared,
): FrontierPlan & { compactions: (PlannedCompaction | undefined)[] } {
  const costs = scheduleCosts(plan, env);
  const compactions = prepared?.compactions ?? (space.compact ? compactionsOf(plan, env, costs.base) : plan.calls.map(() => undefined));
  const hindsight = prepared?.hindsight ?? new EditHindsight(plan, compactions, env);
  const blind = prepared?.blind ?? { schedules: new Map<EditKind, Schedule>() };
  const points: FrontierPoint[] = [];
  const duals = space.kinds.map(() => new KindDual());
  let found: { schedule: Schedule; recall: EditRecall } | undefined;
  let keepsMost: { schedule: Schedule; recall: EditRecall } | undefined;
  const better = (a: Schedule, b: Schedule) => a.overWindow < b.overWindow || (a.overWindow === b.overWindow && a.inputCost < b.inputCost);
  /** One kind's program at `lambda`, its schedule weighed as a candidate and its line added to the kind's dual. */
  const solve = (k: number, lambda: number): Cut & { schedule: Schedule } => {
    const kind = space.kinds[k];
    const penalty: EditPenalty | undefined =
      lambda === 0
        ? undefined
        : (t, segment, cleared) => {
            const r = hindsight.at(kind.inputs, t, segment, cleared);
            return lambda * (floor * r.probes - r.retained);
          };
    // Without a price the program is the same at every floor: solved once per kind.
    let s = lambda === 0 ? blind.schedules.get(kind) : undefined;
    if (!s) {
      s = planSchedule(plan, kind, compactions, costs, penalty);
      if (lambda === 0) blind.schedules.set(kind, s);
    }
    const recall = hindsight.ofSchedule(s);
    if (meets(recall, floor) && (!found || better(s, found.schedule))) found = { schedule: s, recall };
    if (!keepsMost || recallOf(recall) > recallOf(keepsMost.recall)) keepsMost = { schedule: s, recall };
    const cost = s.inputCost + s.overWindow * OVER_WINDOW;
    const cut = { lambda, cost, slope: floor * recall.probes - recall.retained, relaxed: s.relaxed?.objective ?? cost, schedule: s };
    duals[k].add(cut);
    return cut;
  };
  const evaluate = (lambda: number): Cut => {
    let best: Cut | undefined;
    for (let k = 0; k < space.kinds.length; k++) {
      const cut = solve(k, lambda);
      if (!best || cut.relaxed < best.relaxed) best = cut;
    }
    points.push({ lambda, relaxed: best!.relaxed });
    return best!;
  };
  let under = evaluate(0);
  if (under.slope > 1e-9) {
    let meeting = evaluate(LAMBDA_MAX);
    for (let i = 0; i < CUTS; i++) {
      const meet = nextPrice(under, meeting);
      if (meet === undefined) break;
      const cut = evaluate(meet);
      if (converged(cut.relaxed, under.cost + meet * under.slope)) break;
      if (cut.slope > 1e-9) under = cut;
      else meeting = cut;
    }
  } else evaluate(LAMBDA_MAX);
  const least = () => duals.reduce((k, d, i) => (d.best < duals[k].best ? i : k), 0);
  for (let i = 0; i < KIND_CUTS; i++) {
    const k = least();
    const meet = duals[k].next();
    if (meet === undefined) break;
    solve(k, meet);
  }
  const chosen = found ?? keepsMost!;
  const relaxed = Math.min(...duals.map((d) => d.best));
  return {
    floor,
    schedule: chosen.schedule,
    recall: chosen.recall,
    feasible: found !== undefined,
    // Where the floor is met the bound is at most the schedule's cost; the clamp only absorbs rounding.
    bound: found ? Math.min(relaxed - found.schedule.overWindow * OVER_WINDOW, found.schedule.inputCost) : relaxed - chosen.schedule.overWindow * OVER_WINDOW,
    points,
    compactions,
  };
}

/** What the floors of one transcript share: the compactions, the hindsight at each edit, and the recall-blind schedules. */
export interface Prepared {
  compactions: (PlannedCompaction | undefined)[];
  hindsight: EditHindsight;
  blind?: { schedules: Map<EditKind, Schedule> };
}

/** One transcript's share of an archive's frontier: its relaxed optima and what its found schedule goes over the window. */
export interface FrontierShare {
  points: readonly FrontierPoint[];
  overWindow: number;
}

/**
 * The lower bound over an archive at one floor, its recall the archive's (probes and retained summed over
 * transcripts): max over a λ shared by all of the sum of relaxed optima, less OVER_WINDOW per call the found schedules
 * go over the window. A transcript's relaxed optimum is concave in λ, so between two λ evaluated it lies above the
 * chord: the sum of chords, evaluated at every λ any transcript tried, is a bound at each (all cover [0, LAMBDA_MAX]).
 */
export function archiveBound(shares: readonly FrontierShare[]): number {
  if (shares.length === 0) return 0;
  const sorted = shares.map((s) => [...s.points].sort((a, b) => a.lambda - b.lambda));
  const lambdas = [...new Set(sorted.flatMap((ps) => ps.map((p) => p.lambda)))];
  const over = shares.reduce((n, s) => n + s.overWindow, 0) * OVER_WINDOW;
  let best = Number.NEGATIVE_INFINITY;
  for (const lambda of lambdas) {
    let sum = 0;
    for (const ps of sorted) sum += chordAt(ps, lambda);
    best = Math.max(best, sum);
  }
  return best - over;
}

/** The piecewise-linear interpolation of sorted points at `lambda`, clamped to the ends. */
function chordAt(points: readonly FrontierPoint[], lambda: number): number {
  if (lambda <= points[0].lambda) return points[0].relaxed;
  for (let i = 1; i < points.length; i++) {
    const b = points[i];
    if (lambda <= b.lambda) {
      const a = points[i - 1];
      return b.lambda === a.lambda ? Math.min(a.relaxed, b.relaxed) : a.relaxed + ((b.relaxed - a.relaxed) * (lambda - a.lambda)) / (b.lambda - a.lambda);
    }
  }
  return points[points.length - 1].relaxed;
}
