import { z } from 'zod';
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
  // Copied key by key rather than spread and then deleted from: a deleted key turns an object into a slow dictionary.
  // A null prototype keeps a `__proto__` argument an own key, as the spread did.
  const rest: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(args)) {
    if (key !== rule.path && key !== rule.start && key !== rule.end && key !== rule.length) rest[key] = args[key];
  }
  return { path: path ?? normalizePath(rawPath), rest: canonicalJson(rest), range };
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

interface Classified {
  site: CallSite;
  identicalKey: string;
  /** Calls in the same group may cover each other. */
  groupKey?: string;
  /** Set when the group is checked with the built-in sweep. */
  range?: LineRange;
  call: DedupCall;
}

function classify(sites: readonly CallSite[], hints: ToolHints, custom: Readonly<Record<string, Subsumes>>): Classified[] {
  const invalidators = new Set<string>();
  for (const hint of Object.values(hints)) if (hint.dedup) for (const t of hint.invalidatedBy ?? []) invalidators.add(t);
  for (const name of Object.keys(custom)) for (const t of own(hints, name)?.invalidatedBy ?? []) invalidators.add(t);
  const seen = new Invalidations();
  const out: Classified[] = [];
  for (const site of sites) {
    const { name, arguments: argumentsJson } = site.call.function;
    const hint = own(hints, name);
    const predicate = own(custom, name);
    if (hint?.dedup || predicate) {
      const args = callArguments(site.call);
      const rule = hint?.range;
      const rawPath = rule && args ? args[rule.path] : undefined;
      const path = typeof rawPath === 'string' && rawPath !== '' ? normalizePath(rawPath) : undefined;
      const by = hint?.invalidatedBy ?? [];
      const epochKey = path !== undefined ? `${path}#${seen.pathEpoch(by, path)}` : `#${seen.epoch(by)}`;
      const item: Classified = {
        site,
        identicalKey: `${name}\0${epochKey}\0${callCanonicalArguments(site.call) ?? `raw:${argumentsJson}`}`,
        call: { name, arguments: argumentsJson, args },
      };
      if (predicate) {
        item.groupKey = `${name}\0${epochKey}`;
      } else if (rule && args && path !== undefined) {
        const read = rangedRead(args, rule, path);
        if (read) {
          item.groupKey = `${name}\0${epochKey}\0${read.rest}`;
          item.range = read.range;
        }
      }
      out.push(item);
    }
    if (invalidators.has(name)) seen.record(site.call);
  }
  return out;
}

/**
 * Calls with a later call of identical arguments (same tool, nothing invalidating in between) that can cover. Only a
 * call with an earlier identical one is asked whether it can cover: that reads its result, and most calls are unique.
 */
function identicalCovered(items: readonly Classified[], canCover: (site: CallSite) => boolean): Set<number> {
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    if (!first.has(item.identicalKey)) first.set(item.identicalKey, i);
  });
  const covered = new Set<number>();
  const later = new Set<string>();
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (later.has(item.identicalKey)) covered.add(item.site.seq);
    else if ((first.get(item.identicalKey) ?? i) < i && canCover(item.site)) later.add(item.identicalKey);
  }
  return covered;
}

function subsumptionCovered(items: readonly Classified[], custom: Readonly<Record<string, Subsumes>>, canCover: (site: CallSite) => boolean): Set<number> {
  const groups = new Map<string, Classified[]>();
  for (const item of items) {
    if (item.groupKey === undefined) continue;
    let group = groups.get(item.groupKey);
    if (!group) groups.set(item.groupKey, (group = []));
    group.push(item);
  }
  const covered = new Set<number>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const predicate = own(custom, group[0].call.name);
    const found = predicate
      ? coveredPairwise(
          group.map((g) => ({ seq: g.site.seq, canCover: canCover(g.site), call: g.call })),
          (a, b) => predicate(a.call, b.call),
        )
      : coveredBySweep(group.map((g): RangedRead => ({ seq: g.site.seq, canCover: canCover(g.site), ...(g.range as LineRange) })));
    for (const seq of found) covered.add(seq);
  }
  return covered;
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
      const items = classify(callSites(messages), config.toolHints, custom);
      // A failed call (or one without a result) never covers another.
      const canCover = (site: CallSite) => !failedOrMissing(messages, site);
      const identical = identicalCovered(items, canCover);
      const subsumed = subsumptionCovered(items, custom, canCover);
      const removable: CallSite[] = [];
      const details = { ...none };
      for (const { site } of items) {
        if (site.message < headEnd || site.message >= tailStart || site.result >= tailStart) continue;
        if (identical.has(site.seq)) details.duplicatesRemoved++;
        else if (subsumed.has(site.seq)) details.subsumedRemoved++;
        else continue;
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
