import * as z from 'zod';
import { canonicalJson } from '../io/canonical-json.js';
import type { ToolCall } from '../model/message.js';
import { callAction, callArguments, callCanonicalArguments } from '../model/tool-call-facts.js';
import { normalizePath } from '../model/tool-semantics.js';
import { BoundaryFields, ToolHintsField } from './_config.js';
import { type CallSite, callSites, failedOrMissing, removeSites } from './_call-sites.js';
import { unchanged, withMessages } from './_edit.js';
import { type LineRange, type RangedRead, coveredBySweep, coveredPairwise, rangeContains, readRange } from './_line-ranges.js';
import { protectedRange } from './boundaries.js';
import type { RangeRule, ToolHints } from './tool-hints.js';
import type { Strategy } from './types.js';

const DedupToolsConfigSchema = z.strictObject({ ...BoundaryFields, ...ToolHintsField });

/** A tool call as a subsumption predicate sees it. */
interface DedupCall {
  name: string;
  /** The raw arguments text. */
  arguments: string;
  /** The arguments parsed, or undefined when they are not a JSON object. */
  args: Readonly<Record<string, unknown>> | undefined;
}

/** True when `later` makes `earlier` redundant (it returned at least what `earlier` returned). */
type Subsumes = (earlier: DedupCall, later: DedupCall) => boolean;

interface DedupToolsOptions {
  /**
   * Coverage predicates by tool name, checked pair by pair (O(n^2) per group of calls that nothing invalidated in
   * between). A tool with a predicate is deduplicated even without the `dedup` hint, and the predicate replaces its
   * range rule. Failed calls still never cover, and `invalidatedBy` still breaks coverage.
   * @default {}
   */
  subsumes?: Readonly<Record<string, Subsumes>>;
}

/** The built-in line-range rule as a pairwise predicate: what the sweep computes, one pair at a time. */
export function rangeSubsumes(rule: RangeRule): Subsumes {
  return (earlier, later) => {
    if (!earlier.args || !later.args) return false;
    const a = rangedRead(earlier.args, rule);
    const b = rangedRead(later.args, rule);
    return a !== undefined && b !== undefined && a.path === b.path && a.rest === b.rest && rangeContains(b.range, a.range);
  };
}

/** `path` is the normalized path when the caller has it already. */
function rangedRead(args: Readonly<Record<string, unknown>>, rule: RangeRule, path?: string): { path: string; rest: string; range: LineRange } | undefined {
  const rawPath = args[rule.path];
  if (typeof rawPath !== 'string' || rawPath === '') return undefined;
  const range = readRange(args, rule);
  if (!range) return undefined;
  return { path: path ?? normalizePath(rawPath), rest: restOf(args, rule), range };
}

/** The canonical JSON of the arguments besides the path and the range: `{}` for most reads, with nothing to copy. */
function restOf(args: Readonly<Record<string, unknown>>, rule: RangeRule): string {
  let others = false;
  for (const key of Object.keys(args)) {
    if (key !== rule.path && key !== rule.start && key !== rule.end && key !== rule.length) {
      others = true;
      break;
    }
  }
  if (!others) return '{}';
  // Copied key by key rather than spread and then deleted from: a deleted key turns an object into a slow dictionary.
  // A null prototype keeps a `__proto__` argument an own key, as the spread did.
  const rest: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(args)) {
    if (key !== rule.path && key !== rule.start && key !== rule.end && key !== rule.length) rest[key] = args[key];
  }
  return canonicalJson(rest);
}

/** A record entry by tool name; tool names like `constructor` must not reach Object.prototype. */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A dedup-able tool, as the hints and predicates describe it. */
interface DedupPlan {
  name: string;
  /** Where this tool's open buckets are kept while a transcript is classified. */
  index: number;
  /** The tool's range hint: where its path is read from, even when a predicate replaces its rule. */
  range?: RangeRule;
  predicate?: Subsumes;
  /** Its `invalidatedBy` list: dedup-able tools with equal lists share one count of what invalidated them. */
  group: number;
}

/** A group whose count a call of an invalidating tool advances, as many times as the group's list names the tool. */
interface GroupCount {
  group: number;
  times: number;
}

/** What dedup-tools does with the calls of one tool name. */
interface ToolPlan {
  dedup?: DedupPlan;
  invalidates?: GroupCount[];
}

/** The hints and predicates read once, so a call costs one lookup by name and most calls (Bash...) no more. */
interface Plan {
  tools: Map<string, ToolPlan>;
  dedupTools: number;
  groups: number;
}

const plansByHints = new WeakMap<ToolHints, WeakMap<object, Plan>>();

function planOf(hints: ToolHints, custom: Readonly<Record<string, Subsumes>>): Plan {
  let byCustom = plansByHints.get(hints);
  if (!byCustom) plansByHints.set(hints, (byCustom = new WeakMap()));
  let plan = byCustom.get(custom);
  if (!plan) byCustom.set(custom, (plan = buildPlan(hints, custom)));
  return plan;
}

function buildPlan(hints: ToolHints, custom: Readonly<Record<string, Subsumes>>): Plan {
  const tools = new Map<string, ToolPlan>();
  const toolPlan = (name: string) => {
    let tool = tools.get(name);
    if (!tool) tools.set(name, (tool = {}));
    return tool;
  };
  const groups = new Map<string, number>();
  let dedupTools = 0;
  for (const name of new Set([...Object.keys(hints), ...Object.keys(custom)])) {
    const hint = own(hints, name);
    const predicate = own(custom, name);
    if (!hint?.dedup && !predicate) continue;
    const by = hint?.invalidatedBy ?? [];
    const list = JSON.stringify(by);
    let group = groups.get(list);
    if (group === undefined) {
      groups.set(list, (group = groups.size));
      for (const invalidator of by) {
        const counts = (toolPlan(invalidator).invalidates ??= []);
        const count = counts.find((c) => c.group === group);
        if (count) count.times++;
        else counts.push({ group, times: 1 });
      }
    }
    toolPlan(name).dedup = { name, index: dedupTools++, range: hint?.range, predicate: predicate || undefined, group };
  }
  return { tools, dedupTools, groups: groups.size };
}

/**
 * Counts, per group of dedup-able tools, the invalidating calls seen so far, so that two calls of a tool are
 * comparable exactly when no invalidating call lies between them: their counts (the call's "epoch") are equal. Counts
 * only grow, so a call whose epoch differs from that of the previous call of its kind starts a new bucket.
 */
class Invalidations {
  /** Calls that may have changed something: all but recognisable reads (a `str_replace_editor` view). */
  private readonly all: number[];
  /** Among them, the writes and edits of a known path... */
  private readonly withPath: number[];
  /** ...by path. */
  private readonly byPath: (Map<string, number> | undefined)[];

  constructor(groups: number) {
    this.all = new Array<number>(groups).fill(0);
    this.withPath = new Array<number>(groups).fill(0);
    this.byPath = new Array<Map<string, number> | undefined>(groups).fill(undefined);
  }

  record(call: ToolCall, counts: readonly GroupCount[]): void {
    const action = callAction(call);
    if (action.kind === 'read' || action.kind === 'list' || action.kind === 'search') return;
    const path = action.kind === 'write' || action.kind === 'edit' ? normalizePath(action.path) : undefined;
    for (const { group, times } of counts) {
      this.all[group] += times;
      if (path === undefined) continue;
      this.withPath[group] += times;
      let byPath = this.byPath[group];
      if (!byPath) this.byPath[group] = byPath = new Map();
      byPath.set(path, (byPath.get(path) ?? 0) + times);
    }
  }

  /** Any call of the group's tools that may have changed something. */
  epoch(group: number): number {
    return this.all[group];
  }

  /** Calls of the group's tools that may have modified `path`: writes and edits of that path, and calls whose target is unknown. */
  pathEpoch(group: number, path: string): number {
    return this.all[group] - this.withPath[group] + (this.byPath[group]?.get(path) ?? 0);
  }
}

/** How a call is covered: by a later identical call, or by a later call that subsumes it. */
const IDENTICAL = 1;
const SUBSUMED = 2;
/** Whether a call can cover another, once asked. */
const YES = 1;
const NO = 2;

/** A call of a dedup-able tool. */
interface Classified {
  site: CallSite;
  /** Its arguments when its tool has a range rule (undefined when they are not a JSON object). */
  args: Readonly<Record<string, unknown>> | undefined;
  /** Set when a later call may cover it through the built-in range rule. */
  range: LineRange | undefined;
}

/**
 * Calls of one tool that may cover each other: the same path (for a ranged tool) and no invalidating call between them.
 * Only a bucket of two calls or more is looked at further, so a call that is the only one of its kind costs no
 * canonical JSON.
 */
interface Bucket {
  name: string;
  /** The tool's range rule, unless a predicate replaces it. */
  rule: RangeRule | undefined;
  predicate: Subsumes | undefined;
  /** The epoch its calls share. */
  epoch: number;
  items: Classified[];
}

/** A tool's bucket still open to calls, for calls without a path and by path. */
interface OpenBuckets {
  withoutPath: Bucket | undefined;
  byPath: Map<string, Bucket> | undefined;
}

/** The dedup-able calls in buckets (in the order of their first call; each bucket's calls in transcript order). */
function classify(sites: readonly CallSite[], plan: Plan): Bucket[] {
  const seen = new Invalidations(plan.groups);
  const buckets: Bucket[] = [];
  const open = new Array<OpenBuckets | undefined>(plan.dedupTools).fill(undefined);
  for (const site of sites) {
    const call = site.call;
    const tool = plan.tools.get(call.function.name);
    if (tool === undefined) continue;
    const dedup = tool.dedup;
    if (dedup !== undefined) {
      const rule = dedup.range;
      const args = rule ? callArguments(call) : undefined;
      const rawPath = rule && args ? args[rule.path] : undefined;
      const path = typeof rawPath === 'string' && rawPath !== '' ? normalizePath(rawPath) : undefined;
      const range = !dedup.predicate && rule && args && path !== undefined ? readRange(args, rule) : undefined;
      let kind = open[dedup.index];
      if (!kind) open[dedup.index] = kind = { withoutPath: undefined, byPath: undefined };
      const epoch = path !== undefined ? seen.pathEpoch(dedup.group, path) : seen.epoch(dedup.group);
      let bucket = path !== undefined ? kind.byPath?.get(path) : kind.withoutPath;
      if (bucket === undefined || bucket.epoch !== epoch) {
        bucket = { name: dedup.name, rule: dedup.predicate ? undefined : rule, predicate: dedup.predicate, epoch, items: [] };
        buckets.push(bucket);
        if (path === undefined) kind.withoutPath = bucket;
        else (kind.byPath ??= new Map()).set(path, bucket);
      }
      bucket.items.push({ site, args, range });
    }
    if (tool.invalidates) seen.record(call, tool.invalidates);
  }
  return buckets;
}

/** The text two calls of a bucket are compared on: their canonical arguments, or the raw text when it is not an object. */
function identityOf(call: ToolCall): string {
  const canonical = callCanonicalArguments(call);
  return canonical === undefined ? `raw:${call.function.arguments}` : canonical;
}

/**
 * The bucket's calls grouped by identical arguments, each group in transcript order. Calls with the same arguments
 * text are identical. Calls whose texts differ are identical when their canonical arguments are, which needs their
 * range to be the same too: canonical JSON is computed only for a text that shares its range with another text, and
 * most re-reads repeat their text or read another range.
 */
function identicalGroups(items: readonly Classified[]): CallSite[][] {
  const byText = new Map<string, { range: LineRange | undefined; sites: CallSite[] }>();
  for (const { site, range } of items) {
    const text = site.call.function.arguments;
    const same = byText.get(text);
    if (same) same.sites.push(site);
    else byText.set(text, { range, sites: [site] });
  }
  const texts = [...byText.values()];
  if (texts.length === 1) return [texts[0].sites];
  // Texts without a range first, then by range: texts that may be identical are next to each other.
  texts.sort((a, b) => compareRanges(a.range, b.range));
  const groups: CallSite[][] = [];
  for (let i = 0; i < texts.length;) {
    let j = i + 1;
    while (j < texts.length && sameRange(texts[i].range, texts[j].range)) j++;
    if (j === i + 1) groups.push(texts[i].sites);
    else groups.push(...byIdentity(texts.slice(i, j)));
    i = j;
  }
  return groups;
}

/** Order by start, then end (ends may be Infinity); no range first. */
function compareRanges(a: LineRange | undefined, b: LineRange | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (a.start !== b.start) return a.start - b.start;
  return a.end === b.end ? 0 : a.end < b.end ? -1 : 1;
}

function sameRange(a: LineRange | undefined, b: LineRange | undefined): boolean {
  return a === undefined ? b === undefined : b !== undefined && a.start === b.start && a.end === b.end;
}

/** Texts that may be identical, grouped by their canonical arguments (a text's first call stands for all of its calls). */
function byIdentity(texts: readonly { sites: CallSite[] }[]): CallSite[][] {
  const groups = new Map<string, CallSite[]>();
  for (const { sites } of texts) {
    const identity = identityOf(sites[0].call);
    const group = groups.get(identity);
    if (group) group.push(...sites);
    else groups.set(identity, [...sites]);
  }
  const out: CallSite[][] = [];
  for (const group of groups.values()) out.push(group.sort((a, b) => a.seq - b.seq));
  return out;
}

/**
 * Marks each call of the bucket that a later call with identical arguments can cover. Only a call with an earlier
 * identical one is asked whether it can cover: that reads its result, and most calls are unique.
 */
function markIdentical(items: readonly Classified[], canCover: (site: CallSite) => boolean, marks: Uint8Array): void {
  for (const group of identicalGroups(items)) {
    let cover = group.length - 1;
    while (cover > 0 && !canCover(group[cover])) cover--;
    for (let i = 0; i < cover; i++) marks[group[i].seq] = IDENTICAL;
  }
}

/** Marks each call of the bucket that a later call covers by the tool's predicate or its line ranges. */
function markSubsumed(bucket: Bucket, canCover: (site: CallSite) => boolean, marks: Uint8Array): void {
  const predicate = bucket.predicate;
  if (predicate) {
    const calls = bucket.items.map(({ site }) => {
      const { name, arguments: argumentsJson } = site.call.function;
      return { seq: site.seq, canCover: canCover(site), call: { name, arguments: argumentsJson, args: callArguments(site.call) } };
    });
    for (const seq of coveredPairwise(calls, (a, b) => predicate(a.call, b.call))) marks[seq] ||= SUBSUMED;
    return;
  }
  const rule = bucket.rule;
  if (!rule) return;
  const byRest = new Map<string, (RangedRead & { site: CallSite })[]>();
  for (const { site, args, range } of bucket.items) {
    if (!range) continue;
    // A call with a range has arguments: the range was read from them.
    const rest = restOf(args!, rule);
    const read = { seq: site.seq, canCover: false, start: range.start, end: range.end, site };
    const group = byRest.get(rest);
    if (group) group.push(read);
    else byRest.set(rest, [read]);
  }
  for (const group of byRest.values()) {
    if (group.length < 2) continue;
    if (group.length <= PAIRWISE_MAX) {
      markContained(group, canCover, marks);
      continue;
    }
    for (const read of group) read.canCover = canCover(read.site);
    for (const seq of coveredBySweep(group)) marks[seq] ||= SUBSUMED;
  }
}

/** Up to this many reads of one path, pair by pair costs less than the sweep's sorted copies and tree. */
const PAIRWISE_MAX = 16;

/**
 * What coveredBySweep finds, pair by pair, for a small group in transcript order: a read is covered by a later one whose
 * range contains it and that can cover. A read is asked whether it can cover only when it contains an earlier one.
 */
function markContained(group: readonly (LineRange & { site: CallSite })[], canCover: (site: CallSite) => boolean, marks: Uint8Array): void {
  for (let i = 0; i < group.length - 1; i++) {
    for (let j = i + 1; j < group.length; j++) {
      if (rangeContains(group[j], group[i]) && canCover(group[j].site)) {
        marks[group[i].site.seq] ||= SUBSUMED;
        break;
      }
    }
  }
}

/**
 * `dedup-tools`, with optional subsumption predicates. Removes, call and result together, an earlier call of a
 * dedup-able tool when a later call makes it redundant: identical arguments (canonical JSON), or a later read whose
 * line range contains it (the tool's `range` hint) or that a registered predicate says covers it. A failed call never
 * covers; an invalidating call in between (for ranged tools, one that may modify the same path) breaks coverage. Only
 * the unprotected middle loses calls, but a later call in the kept tail may cover one there.
 */
export function createDedupTools(options: DedupToolsOptions = {}): Strategy<typeof DedupToolsConfigSchema> {
  const custom = options.subsumes ?? {};
  return {
    name: 'dedup-tools',
    summary: 'remove earlier tool calls repeated or covered by a later call (identical arguments, contained line ranges)',
    config: DedupToolsConfigSchema,
    apply(transcript, config) {
      const messages = transcript.messages;
      const { headEnd, tailStart } = protectedRange(messages, config);
      const none = { duplicatesRemoved: 0, subsumedRemoved: 0 };
      if (headEnd >= tailStart) return unchanged(transcript, none);
      const sites = callSites(messages);
      const buckets = classify(sites, planOf(config.toolHints, custom));
      // A failed call (or one without a result) never covers another. Asked at most once per call.
      const coverable = new Uint8Array(sites.length);
      const canCover = (site: CallSite) => {
        if (coverable[site.seq] === 0) coverable[site.seq] = failedOrMissing(messages, site) ? NO : YES;
        return coverable[site.seq] === YES;
      };
      const marks = new Uint8Array(sites.length);
      let marked = false;
      for (const bucket of buckets) {
        if (bucket.items.length < 2) continue;
        markIdentical(bucket.items, canCover, marks);
        markSubsumed(bucket, canCover, marks);
        marked = true;
      }
      if (!marked) return unchanged(transcript, none);
      const removable: CallSite[] = [];
      const details = { ...none };
      for (const site of sites) {
        const mark = marks[site.seq];
        if (mark === 0 || site.message < headEnd || site.message >= tailStart || site.result >= tailStart) continue;
        if (mark === IDENTICAL) details.duplicatesRemoved++;
        else details.subsumedRemoved++;
        removable.push(site);
      }
      if (removable.length === 0) return unchanged(transcript, none);
      const removal = removeSites(messages, removable);
      return {
        transcript: withMessages(transcript, removal.messages),
        messagesChanged: removal.messagesChanged,
        messagesRemoved: removal.messagesRemoved,
        details,
      };
    },
  };
}

export const dedupTools = createDedupTools();
