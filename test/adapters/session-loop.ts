/**
 * What the adapters' loops are compared with: the bundled Claude Code sessions, the prompts `simulate --policy
 * config:FILE` replays for them (its engine, `replay`, with the policy `simulate` resolves from the file), the cost it
 * states, and the same cache rules pricing the prompts a runtime sent.
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join } from 'node:path';
import { readInputs } from '../../src/formats/read-inputs.js';
import { type Message, type ToolMessage, isAssistant, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { CACHE_RULES, DEFAULT_CALL_GAP_SECONDS, contentBlocks } from '../../src/provider/cache-rules.js';
import { CallClock } from '../../src/replay/billing/call-clock.js';
import { DEFAULT_PRICES, costOfBill } from '../../src/replay/billing/prices.js';
import { PromptCache } from '../../src/replay/billing/prompt-cache.js';
import type { ContextManager } from '../../src/context/context-manager.js';
import { branchFrom, branchPoint, callThread } from '../../src/model/recorded.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { type ReplayStats, replay, replayed } from '../../src/replay/replay.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { claudeCodeWithLongSessionHead } from '../helpers/long-session.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { policyEnv } from '../helpers/policy-env.js';

export const CLAUDE_CODE = join(ROOT, 'datasets/bundled/claude-code');
/** Claude Code sessions with the shapes the bundled ones lack (see test/fixtures/adapter-sessions/README.md). */
const FIXTURES = join(ROOT, 'test/fixtures/adapter-sessions');
export const FIXTURE = (name: string) => join(FIXTURES, `${name}.jsonl`);
const tok = getTokenizer('o200k_base');
/** The cache that bills the bundled Claude Code sessions (Anthropic's 5-minute cache). */
const RULES = CACHE_RULES['anthropic-5m'];

/**
 * ContextManager options the loops run with: a window where the cache-aware edits mask old results, and one small
 * enough that the auto pipeline compacts the largest session too (its edits keeping the last 10 results, so that the
 * prompt still reaches the trigger: with the default tail of 1 they keep it under).
 */
export const CONFIGS = {
  edits: { window: 60_000, editTail: { results: 2, messages: 2 } },
  compaction: { window: 12_000, editTail: { results: 10, messages: 10 } },
} as const;

/**
 * The loops: the edits options on the sessions as recorded (their timestamps make some edits `cold`, see flagsAsHeld), the compaction
 * options on the sessions as a runtime holds them (`asRuntimeHolds`), where a second checkpoint, which quotes the
 * first one's ref, cuts its text at the same token.
 */
export const LOOPS = [
  { name: 'edits', options: CONFIGS.edits, runtimeView: false },
  { name: 'compaction', options: CONFIGS.compaction, runtimeView: true },
] as const;

/**
 * The session with only what a runtime's messages hold (no timestamps, usage or model: the calls are then 10 s apart),
 * through the given round trip.
 */
export function asRuntimeHolds(t: Transcript, roundTrip: (m: Message) => Message[]): Transcript {
  return { id: t.id, messages: t.messages.filter(replayed).flatMap(roundTrip) };
}

export async function bundledSessions(inputs: readonly string[] = [CLAUDE_CODE]): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([...inputs], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') out.push(item.transcript);
  return out.filter((t) => t.messages.some(isAssistant));
}

/**
 * The long session's first lines that the loops run: past its compaction and past the edits loop's 60,000-token window
 * (see test/tune/exports.test.ts). Its whole 2,385 lines cost about half of each loop file's time: every call's prompt is
 * checked message by message and the runtimes handle their whole prompt at every call, so the cost grows with the
 * square of its length, and the calls after these show no new shape.
 */
const LONG_SESSION_LINES = 1_600;

/**
 * The sessions the loops run: the bundled ones (the long one cut short, as Claude Code leaves it part way through), and
 * the fixtures with the shapes they lack.
 */
export const loopSessions = async () =>
  (
    await bundledSessions([
      claudeCodeWithLongSessionHead(tempDir('loop-sessions'), LONG_SESSION_LINES),
      FIXTURE('is-error-false'),
      FIXTURE('thinking-blocks'),
      FIXTURE('fork'),
      FIXTURE('empty-thinking'),
    ])
  ).map(withoutInterruptedRequests);

/**
 * The session as an agent loop runs it: a request the user interrupted (which the replay bills from the record) is
 * no call of the loop, so neither side sends it.
 */
function withoutInterruptedRequests(t: Transcript): Transcript {
  if (!t.messages.some((m) => m.unrecorded_request === true)) return t;
  return {
    ...t,
    messages: t.messages.map((m) => {
      if (m.unrecorded_request !== true) return m;
      const { unrecorded_request: _interrupted, ...rest } = m;
      return rest as Message;
    }),
  };
}

/**
 * The session as recorded, each tool result's `is_error` as the runtime's messages hold it (the round trip's): a
 * runtime that marks every result holds `false` where the session has no flag.
 */
export function flagsAsHeld(t: Transcript, roundTrip: (m: Message) => Message[]): Transcript {
  const messages = t.messages.map((m) => {
    if (!isTool(m)) return m;
    const held = (roundTrip(m)[0] as ToolMessage).is_error;
    if (held === m.is_error) return m;
    const { is_error: _recorded, ...rest } = m;
    return held === undefined ? rest : { ...rest, is_error: held };
  });
  return { ...t, messages };
}

/** Writes the options as the JSON file `config:FILE` reads. */
export function writeConfig(dir: string, name: string, options: object): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(options));
  return path;
}

/** The messages the agent loop replays, in the session's order. */
export const replayedMessages = (t: Transcript): Message[] => t.messages.filter(replayed);
export const resultsOf = (messages: readonly Message[]) => new Map(messages.filter(isTool).map((m) => [m.tool_call_id, m]));
export const toolNames = (messages: readonly Message[]) => [
  ...new Set(messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []).map((c) => c.function.name) : []))),
];

/** When the replay makes each call (what the adapters' `now` hook is given, call by call). */
export function callTimes(t: Transcript): number[] {
  const clock = new CallClock(t.messages, DEFAULT_CALL_GAP_SECONDS * 1000);
  const out: number[] = [];
  for (const m of t.messages) {
    const at = clock.next(m);
    if (replayed(m) && isAssistant(m)) out.push(at);
  }
  return out;
}

/** A clock that gives these call times in order. */
export function clockOf(times: readonly number[]): () => number {
  let call = 0;
  return () => times[call++];
}

/**
 * One branch of a session as a runtime of its own runs it (a second process going on from the session's file): the
 * history it starts from (the fork's, as recorded), its own messages, and when the replay makes each of its calls.
 */
export interface Branch {
  start: Message[];
  messages: Message[];
  times: number[];
}

/** The session's branches (one for an unforked session), and the branch of each call, in the session's order. */
export function branchesOf(t: Transcript): { branches: Branch[]; order: number[] } {
  const times = callTimes(t);
  const byThread = new Map<number, Branch>();
  const points = new Map<number, Message[]>();
  const order: number[] = [];
  for (const m of replayedMessages(t)) {
    let branch = byThread.get(callThread(m));
    if (!branch) {
      const from = branchFrom(m);
      byThread.set(callThread(m), (branch = { start: from === undefined ? [] : [...(points.get(from) ?? [])], messages: [], times: [] }));
    }
    branch.messages.push(m);
    if (isAssistant(m)) {
      order.push([...byThread.values()].indexOf(branch));
      branch.times.push(times[order.length - 1]);
    }
    const point = branchPoint(m);
    if (point !== undefined) points.set(point, [...branch.start, ...branch.messages]);
  }
  return { branches: [...byThread.values()], order };
}

/** Each branch's calls put back in the session's order. */
export function inSessionOrder<T>(perBranch: readonly (readonly T[])[], order: readonly number[]): T[] {
  const next = perBranch.map(() => 0);
  return order.map((b) => perBranch[b][next[b]++]);
}

/**
 * Every prompt the replay of `config:FILE` sends, and the figures it states. A forked session's branches each have a
 * manager of their own (ContextManager.fresh): each is watched.
 */
export async function replayOf(t: Transcript, configPath: string, window: number): Promise<{ prompts: Message[][]; stats: ReplayStats }> {
  const instance = resolvePolicy(`config:${configPath}`, tok).instantiate(policyEnv({ tokenizer: tok, window, cache: RULES }));
  const prompts: Message[][] = [];
  const watch = (manager: ContextManager): ContextManager => {
    const watched = Object.create(manager) as ContextManager;
    watched.check = async (input) => {
      const result = await manager.check(input);
      prompts.push([...result.messages]);
      return result;
    };
    watched.fresh = () => watch(manager.fresh());
    return watched;
  };
  const stats = await replay(t, { ...instance, manager: watch(instance.manager!) }, { tokenizer: tok, window, cache: RULES });
  return { prompts, stats };
}

/**
 * The cost of prompts a runtime sent (as canonical messages) under the cache rules that bill the replay: the same
 * content at the same place is the same cached message, the replay's call times, the session's replies as output.
 */
export function costOfPrompts(
  t: Transcript,
  prompts: readonly (readonly Message[])[],
): { withCache: number; input: number; cachedRead: number; cacheWrites: number } {
  const cache = new PromptCache(RULES);
  const times = callTimes(t);
  const interned = new Map<string, Message>();
  // A prompt repeats most of the one before: each message is serialized and counted once, not once per prompt.
  const tokens = new Map<Message, number>();
  const intern = (m: Message) => {
    const key = jsonOf(m);
    let known = interned.get(key);
    if (!known) interned.set(key, (known = m));
    return known;
  };
  const tokensOf = (m: Message) => {
    let n = tokens.get(m);
    if (n === undefined) tokens.set(m, (n = totalOf(countMessage(m, tok))));
    return n;
  };
  const bill = { input: 0, cachedRead: 0, cacheWrites: 0, output: 0 };
  prompts.forEach((prompt, call) => {
    const messages = prompt.map(intern);
    const billed = cache.call({
      messages,
      tokensOf: (i) => tokensOf(messages[i]),
      blocksOf: (i) => contentBlocks(messages[i]),
      baseTokens: 0,
      atMs: times[call],
    });
    bill.input += messages.reduce((n, m) => n + tokensOf(m), 0);
    bill.cachedRead += billed.read;
    bill.cacheWrites += billed.written;
  });
  bill.output = replayedMessages(t)
    .filter(isAssistant)
    .reduce((n, m) => n + totalOf(countMessage(m, tok)), 0);
  return { ...bill, withCache: costOfBill(bill, DEFAULT_PRICES).withCache };
}

/** The cost the replay states, at the same prices. */
export function costOfReplay(stats: ReplayStats): { withCache: number; input: number; cachedRead: number; cacheWrites: number } {
  const bill = { input: stats.billedInput, cachedRead: stats.cachedInput, cacheWrites: stats.cacheWrites, output: stats.outputTokens };
  return { ...bill, withCache: costOfBill(bill, DEFAULT_PRICES).withCache };
}

const REF = /\(ref: [0-9a-f]{16}\)/g;
const SAME_REF = '(ref: 0000000000000000)';

/** A message's JSON, made once per message object: the prompts of a session share their messages. */
const jsons = new WeakMap<Message, string>();
function jsonOf(m: Message): string {
  let json = jsons.get(m);
  if (json === undefined) jsons.set(m, (json = JSON.stringify(m)));
  return json;
}

const withSameRefs = new WeakMap<Message, Message>();

/**
 * The prompt with every ref named alike: a ref is the hash of what a strategy removed, and the session file's messages
 * carry fields (timestamps, usage, model) that no runtime holds, so the same removal hashes differently on each side.
 */
export function sameRefs(prompt: readonly Message[]): Message[] {
  return prompt.map((m) => {
    let same = withSameRefs.get(m);
    if (same === undefined) {
      const json = jsonOf(m);
      same = json.includes('(ref: ') ? (JSON.parse(json.replace(REF, SAME_REF)) as Message) : m;
      withSameRefs.set(m, same);
    }
    return same;
  });
}

/**
 * A check that two prompts are equal with every ref named alike, as {@link expectSameJson} holds them, compared message
 * by message: a message's JSON text is made once per object and kept once per text, and a session's prompts share most
 * of their message objects (the runtime's and the replay's), so a call costs what it adds, not its whole prompt. Where a
 * message differs, expectSameJson compares the whole prompts and reports the difference. (JSON texts join with commas,
 * and no ref spans two messages: equal texts message by message are equal texts of the whole prompt.) One per session:
 * it keeps the texts it saw.
 */
export function promptComparer(): (actual: readonly object[], expected: readonly object[], message: string) => void {
  const jsons = new WeakMap<object, string>();
  const texts = new Map<string, string>();
  const jsonOf = (value: object): string => {
    let json = jsons.get(value);
    if (json === undefined) {
      const text = JSON.stringify(value).replace(REF, SAME_REF);
      json = texts.get(text);
      if (json === undefined) texts.set(text, (json = text));
      jsons.set(value, json);
    }
    return json;
  };
  return (actual, expected, message) => {
    if (actual.length === expected.length && actual.every((m, i) => jsonOf(m) === jsonOf(expected[i]))) return;
    expectSameJson(actual, expected, message);
  };
}

/**
 * Converts prompts run by run, each run once: a run starts at a message for which `startsRun` holds and takes the
 * messages after it for which it does not. `convert` must join nothing of a run to what comes before it, so a prompt's
 * conversion is its runs' conversions in order; a run converted before, the same message objects, gives back the same
 * converted objects (with `keyOf`, only where its key is also the same).
 */
export class RunMemo<T> {
  private readonly runs = new WeakMap<Message, { run: readonly Message[]; key: string; out: readonly T[] }>();

  constructor(
    private readonly startsRun: (m: Message) => boolean,
    private readonly convert: (run: readonly Message[]) => readonly T[],
    private readonly keyOf: (run: readonly Message[]) => string = () => '',
  ) {}

  of(prompt: readonly Message[]): T[] {
    const out: T[] = [];
    for (let from = 0; from < prompt.length;) {
      let to = from + 1;
      while (to < prompt.length && !this.startsRun(prompt[to])) to++;
      const run = prompt.slice(from, to);
      const key = this.keyOf(run);
      let known = this.runs.get(run[0]);
      if (!known || known.key !== key || known.run.length !== run.length || known.run.some((m, i) => m !== run[i])) {
        this.runs.set(run[0], (known = { run, key, out: this.convert(run) }));
      }
      out.push(...known.out);
      from = to;
    }
    return out;
  }
}

/** `convert` of a value, made once per object. */
export function memo<K extends object, V>(convert: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key)!;
    const value = convert(key);
    made.set(key, value);
    return value;
  };
}

/**
 * Two prompts (ModelMessages or any runtime's JSON) are equal with every ref named alike. The deep comparison runs only
 * where their JSON texts differ, to report the difference: every call of every session compares a whole prompt. The
 * JSON text leaves out undefined fields, as `plain` does: the SDK's `providerOptions: undefined` compares as absent.
 */
export function expectSameJson(actual: unknown, expected: unknown, message: string): void {
  const [a, b] = [actual, expected].map((v) => JSON.stringify(v).replace(REF, SAME_REF));
  if (a !== b) expect(JSON.parse(a), message).toEqual(JSON.parse(b));
}
