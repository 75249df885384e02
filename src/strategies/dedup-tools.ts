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

/**
 * Counts invalidating calls seen so far, so that two calls of a tool are comparable exactly when no invalidating call
 * lies between them: their counts (the call's "epoch") are equal.
 */
class Invalidations {
  /**
   * Per invalidating tool, its calls so far that may have changed something: all but recognisable reads (a
   * `str_replace_editor` view), and among them the writes and edits of a known path.
   */
  private readonly byTool = new Map<string, { all: number; withPath: number; byPath: Map<string, number> }>();

  record(call: ToolCall): void {
    const name = call.function.name;
    const action = callAction(call);
    if (action.kind === 'read' || action.kind === 'list' || action.kind === 'search') return;
    let seen = this.byTool.get(name);
    if (!seen) this.byTool.set(name, (seen = { all: 0, withPath: 0, byPath: new Map() }));
    seen.all++;
    if (action.kind === 'write' || action.kind === 'edit') {
      const path = normalizePath(action.path);
      seen.withPath++;
      seen.byPath.set(path, (seen.byPath.get(path) ?? 0) + 1);
    }
  }

  /** Any call of these tools that may have changed something. */
  epoch(tools: readonly string[]): number {
    let n = 0;
    for (const t of tools) n += this.byTool.get(t)?.all ?? 0;
    return n;
  }

  /** Calls of these tools that may have modified `path`: writes and edits of that path, and calls whose target is unknown. */
  pathEpoch(tools: readonly string[], path: string): number {
    let n = 0;
    for (const t of tools) {
      const seen = this.byTool.get(t);
      if (seen) n += seen.all - seen.withPath + (seen.byPath.get(path) ?? 0);
    }
    return n;
  }
}

/** A record entry by tool name; tool names like `constructor` must not reach Object.prototype. */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
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
  /** Set when a later call may cover it through the built-in range rule. */
  range?: LineRange;
}

/**
 * Calls of one tool that may cover each other: the same path (for a ranged tool) and no invalidating call between them.
 * Only a bucket of two calls or more is looked at further, so a call that is the only one of its kind costs no
 * canonical JSON.
 */
interface Bucket {
  name: string;
  /** The tool's range rule, unless a predicate replaces it. */
  rule?: RangeRule;
  items: Classified[];
}

/** The tools whose calls break coverage for some dedup-able tool: only their calls are described. */
const invalidatorsByHints = new WeakMap<ToolHints, WeakMap<object, ReadonlySet<string>>>();

function invalidatorsOf(hints: ToolHints, custom: Readonly<Record<string, Subsumes>>): ReadonlySet<string> {
  let byCustom = invalidatorsByHints.get(hints);
  if (!byCustom) invalidatorsByHints.set(hints, (byCustom = new WeakMap()));
  let invalidators = byCustom.get(custom);
  if (!invalidators) {
    const names = new Set<string>();
    for (const hint of Object.values(hints)) if (hint.dedup) for (const t of hint.invalidatedBy ?? []) names.add(t);
    for (const name of Object.keys(custom)) for (const t of own(hints, name)?.invalidatedBy ?? []) names.add(t);
    byCustom.set(custom, (invalidators = names));
  }
  return invalidators;
}

/** The dedup-able calls in buckets (in the order of their first call; each bucket's calls in transcript order). */
function classify(sites: readonly CallSite[], hints: ToolHints, custom: Readonly<Record<string, Subsumes>>): Bucket[] {
  const invalidators = invalidatorsOf(hints, custom);
  const seen = new Invalidations();
  const buckets = new Map<string, Bucket>();
  for (const site of sites) {
    const name = site.call.function.name;
    const hint = own(hints, name);
    const predicate = own(custom, name);
    if (hint?.dedup || predicate) {
      const rule = hint?.range;
      const args = rule ? callArguments(site.call) : undefined;
      const rawPath = rule && args ? args[rule.path] : undefined;
      const path = typeof rawPath === 'string' && rawPath !== '' ? normalizePath(rawPath) : undefined;
      const by = hint?.invalidatedBy ?? [];
      const key = path !== undefined ? `${name}\0${path}#${seen.pathEpoch(by, path)}` : `${name}\0#${seen.epoch(by)}`;
      const item: Classified = { site };
      if (!predicate && rule && args && path !== undefined) {
        const range = readRange(args, rule);
        if (range) item.range = range;
      }
      let bucket = buckets.get(key);
      if (!bucket) buckets.set(key, (bucket = { name, rule: predicate ? undefined : rule, items: [] }));
      bucket.items.push(item);
    }
    if (invalidators.has(name)) seen.record(site.call);
  }
  return [...buckets.values()];
}

/** The text two calls of a bucket are compared on: their canonical arguments, or the raw text when it is not an object. */
function identityOf(call: ToolCall): string {
  const canonical = callCanonicalArguments(call);
  return canonical === undefined ? `raw:${call.function.arguments}` : canonical;
}

/**
 * Marks each call of the bucket that a later call with identical arguments can cover. Only a call with an earlier
 * identical one is asked whether it can cover: that reads its result, and most calls are unique.
 */
function markIdentical(items: readonly Classified[], canCover: (site: CallSite) => boolean, marks: Uint8Array): void {
  const groups = new Map<string, CallSite[]>();
  for (const { site } of items) {
    const identity = identityOf(site.call);
    const group = groups.get(identity);
    if (group) group.push(site);
    else groups.set(identity, [site]);
  }
  for (const group of groups.values()) {
    let cover = group.length - 1;
    while (cover > 0 && !canCover(group[cover])) cover--;
    for (let i = 0; i < cover; i++) marks[group[i].seq] = IDENTICAL;
  }
}

/** Marks each call of the bucket that a later call covers by the tool's predicate or its line ranges. */
function markSubsumed(bucket: Bucket, custom: Readonly<Record<string, Subsumes>>, canCover: (site: CallSite) => boolean, marks: Uint8Array): void {
  const predicate = own(custom, bucket.name);
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
  for (const { site, range } of bucket.items) {
    if (!range) continue;
    // A call with a range has arguments: the range was read from them.
    const rest = restOf(callArguments(site.call)!, rule);
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
      const buckets = classify(sites, config.toolHints, custom);
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
        markSubsumed(bucket, custom, canCover, marks);
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
