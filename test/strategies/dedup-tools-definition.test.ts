import { describe, expect, it } from 'vitest';
import { canonicalJson, parseArguments } from '../../src/io/canonical-json.js';
import type { Message, ToolCall } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { describeParsedCall, normalizePath } from '../../src/model/tool-semantics.js';
import { callSites, failedOrMissing } from '../../src/strategies/_call-sites.js';
import { removeToolCalls } from '../../src/strategies/_edit.js';
import { readRange } from '../../src/strategies/_line-ranges.js';
import { protectedRange } from '../../src/strategies/boundaries.js';
import { createDedupTools } from '../../src/strategies/dedup-tools.js';
import { type ToolHints, mergeToolHints } from '../../src/strategies/tool-hints.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { LAST_TURN, assistant, result, run, sys, transcript, user } from '../helpers/transcript-kit.js';

/** The predicate a test registers for the `Probe` tool: a later probe covers an earlier one of a smaller depth. */
interface ProbeCall {
  args: Readonly<Record<string, unknown>> | undefined;
}
const deeper = (earlier: ProbeCall, later: ProbeCall) =>
  typeof earlier.args?.depth === 'number' && typeof later.args?.depth === 'number' && later.args.depth >= earlier.args.depth;

/**
 * What dedup-tools removes, by its definition, each call against every later call of the same tool: a later call
 * covers it when no invalidating call of its tool lies from it to the later call (for a ranged tool, one that may
 * modify its path), the later call can cover (it did not fail) and its canonical arguments are the same, or it
 * subsumes it (a predicate, or a range that contains it with the same other arguments). Only the middle loses calls.
 */
function removedByDefinition(messages: readonly Message[], hints: ToolHints, custom: Record<string, typeof deeper>, keep: Record<string, number>) {
  const sites = callSites(messages);
  const facts = sites.map((site) => {
    const { name, arguments: text } = site.call.function;
    const args = parseArguments(text);
    const hint = Object.hasOwn(hints, name) ? hints[name] : undefined;
    const predicate = Object.hasOwn(custom, name) ? custom[name] : undefined;
    const rule = hint?.range;
    const rawPath = rule && args ? args[rule.path] : undefined;
    const path = typeof rawPath === 'string' && rawPath !== '' ? normalizePath(rawPath) : undefined;
    const range = !predicate && rule && args && path !== undefined ? readRange(args, rule) : undefined;
    const rest =
      rule && args ? canonicalJson(Object.fromEntries(Object.entries(args).filter(([k]) => ![rule.path, rule.start, rule.end, rule.length].includes(k)))) : '';
    return {
      name,
      args,
      hint,
      predicate,
      path,
      range,
      rest,
      identity: args ? canonicalJson(args) : `raw:${text}`,
      action: describeParsedCall(name, args),
      canCover: !failedOrMissing(messages, site),
    };
  });
  const breaks = (i: number, k: number) => {
    const by = facts[i].hint?.invalidatedBy ?? [];
    const { action } = facts[k];
    if (!by.includes(facts[k].name) || action.kind === 'read' || action.kind === 'list' || action.kind === 'search') return false;
    return facts[i].path === undefined || (action.kind !== 'write' && action.kind !== 'edit') || normalizePath(action.path) === facts[i].path;
  };
  const { headEnd, tailStart } = protectedRange(messages, { keepMessages: 10, keepResults: 10, keepLast: 0, ...keep });
  const identical: string[] = [];
  const subsumed: string[] = [];
  for (let i = 0; i < sites.length; i++) {
    const a = facts[i];
    const site = sites[i];
    if (!a.hint?.dedup && !a.predicate) continue;
    if (site.message < headEnd || site.message >= tailStart || site.result >= tailStart) continue;
    let same = false;
    let covered = false;
    for (let j = i + 1; j < sites.length; j++) {
      const b = facts[j];
      if (b.name !== a.name || b.path !== a.path) continue;
      let broken = false;
      for (let k = i; k < j && !broken; k++) broken = breaks(i, k);
      if (broken || !b.canCover) continue;
      if (b.identity === a.identity) same = true;
      else if (a.predicate ? a.predicate(a, b) : a.range && b.range && a.rest === b.rest && b.range.start <= a.range.start && b.range.end >= a.range.end)
        covered = true;
    }
    if (same) identical.push(site.call.id);
    else if (covered) subsumed.push(site.call.id);
  }
  return { identical, subsumed };
}

const PATHS = ['/p/a.ts', '/p/./a.ts', '/q/../p/a.ts', '/p/b.ts', 'p/a.ts', ''];
const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)];

/** Arguments of one random call, in a random key order, sometimes spaced, sometimes not JSON at all. */
function randomCall(random: () => number, id: string): ToolCall {
  const some = (value: unknown) => (random() < 0.6 ? value : undefined);
  const name = pick(random, [
    'Read',
    'Read',
    'Read',
    'read_file',
    'Glob',
    'Grep',
    'Edit',
    'Write',
    'Write',
    'Bash',
    'str_replace_editor',
    'Probe',
    'NotebookEdit',
  ]);
  const args: Record<string, unknown> = {};
  if (name === 'Read')
    Object.assign(args, {
      file_path: pick(random, PATHS),
      offset: some(pick(random, [0, 1, 5, '5', -1, null, 12])),
      limit: some(pick(random, [3, 10, 40, 0, '3'])),
    });
  if (name === 'Read' && random() < 0.1) args.pages = pick(random, ['1', '2']);
  if (name === 'read_file')
    Object.assign(args, { path: pick(random, PATHS), start_line: some(pick(random, [1, 4, 9])), end_line: some(pick(random, [4, 20, -1])) });
  if (name === 'Glob' || name === 'Grep') Object.assign(args, { pattern: pick(random, ['*.ts', 'todo']), path: some(pick(random, ['src', 'src/'])) });
  if (name === 'Edit' || name === 'Write' || name === 'NotebookEdit') Object.assign(args, { file_path: some(pick(random, PATHS)), content: 'x' });
  if (name === 'str_replace_editor') Object.assign(args, { command: pick(random, ['view', 'create', 'str_replace']), path: pick(random, PATHS) });
  if (name === 'Bash') args.command = pick(random, ['ls', 'make']);
  if (name === 'Probe') args.depth = pick(random, [1, 2, 3, '2']);
  const keys = Object.keys(args).filter((k) => args[k] !== undefined);
  if (random() < 0.5) keys.reverse();
  const ordered = Object.fromEntries(keys.map((k) => [k, args[k]]));
  const text = random() < 0.05 ? pick(random, ['not json', '[1]', 'null', '{"a":']) : JSON.stringify(ordered, null, random() < 0.2 ? 1 : 0);
  return { id, type: 'function', function: { name, arguments: text } };
}

/** sys, a request, then steps of one to three calls, their results (some failed, some missing), now and then a user turn. */
function randomMessages(random: () => number): Message[] {
  const messages: Message[] = [sys('s'), user('start')];
  let next = 0;
  const steps = Math.floor(random() * 40);
  for (let s = 0; s < steps; s++) {
    const calls = Array.from({ length: 1 + Math.floor(random() * 3) * Number(random() < 0.3) }, () => randomCall(random, `c${next++}`));
    messages.push(assistant(random() < 0.2 ? 'looking' : null, { tool_calls: calls }));
    const results = calls.filter(() => random() < 0.95);
    if (random() < 0.3) results.reverse();
    for (const c of results) {
      const r = random();
      messages.push(
        r < 0.1
          ? result(c.id, 'boom', { is_error: true })
          : r < 0.15
            ? result(c.id, 'Error: no such file')
            : r < 0.18
              ? result(c.id, NO_RESULT_TEXT)
              : result(c.id, `out ${c.id}`),
      );
    }
    if (random() < 0.1) messages.push(user(`turn ${s}`));
  }
  messages.push(user('last request'), assistant('done'));
  return messages;
}

describe('dedup-tools against its definition', () => {
  it('removes what the call-by-call definition removes, on random transcripts, hint sets and boundaries', () => {
    const random = seededRandom(53);
    // Grep invalidated by Bash and by itself (a search changes nothing); Probe by Edit twice and by itself (a call
    // invalidates what comes after it, so no Probe covers another then).
    const userHints = { Grep: { invalidatedBy: ['Bash', 'Grep'] }, Probe: { dedup: true, invalidatedBy: ['Edit', 'Edit', 'Write', 'Probe'] } };
    const withProbe = createDedupTools({ subsumes: { Probe: deeper } });
    const plain = createDedupTools();
    let identicalRemoved = 0;
    let subsumedRemoved = 0;
    for (let n = 0; n < 400; n++) {
      const messages = randomMessages(random);
      const custom: Record<string, typeof deeper> = n % 2 === 0 ? { Probe: deeper } : {};
      const hintsInput = n % 3 === 0 ? userHints : undefined;
      const keep = n % 4 === 0 ? { keepMessages: 4, keepResults: 2 } : LAST_TURN;
      const input = transcript(messages);
      const r = run(n % 2 === 0 ? withProbe : plain, input, { ...keep, ...(hintsInput ? { toolHints: hintsInput } : {}) });
      const expected = removedByDefinition(messages, mergeToolHints(hintsInput), custom, keep);
      const removal = removeToolCalls(messages, new Set([...expected.identical, ...expected.subsumed]));
      expect(r.details).toEqual({ duplicatesRemoved: expected.identical.length, subsumedRemoved: expected.subsumed.length });
      expect(r.transcript.messages).toEqual(removal.messages);
      expect({ changed: r.messagesChanged, removed: r.messagesRemoved }).toEqual({ changed: removal.messagesChanged, removed: removal.messagesRemoved });
      identicalRemoved += expected.identical.length;
      subsumedRemoved += expected.subsumed.length;
    }
    // The random transcripts exercise both kinds of removal, often.
    expect(identicalRemoved).toBeGreaterThan(100);
    expect(subsumedRemoved).toBeGreaterThan(80);
  });
});
