import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ContentPart } from '../src/model/content.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../src/model/message.js';
import type { Transcript } from '../src/model/transcript.js';
import { findViolations, lastUserRequestIndex } from '../src/model/validity.js';
import { restoreTranscript } from '../src/refs/restore.js';
import { compactTranscript } from '../src/strategies/compact-transcript.js';
import { buildSteps, stepFor } from '../src/strategies/build-steps.js';
import { parseCompactConfig } from '../src/strategies/compact-config.js';
import { STRATEGIES } from '../src/strategies/registry.js';
import { protectedRange } from '../src/strategies/boundaries.js';
import { replaceableSpan, replacedMessages } from '../src/strategies/_span.js';
import { type PipelineStep, prepareStrategies } from '../src/strategies/runner.js';
import { bundledTranscripts } from './helpers/bundled-transcripts.js';
import { deepFreeze, makeContext } from './helpers/transcript-kit.js';

// ---- A generator of valid transcripts: turns of user requests, assistant steps with tool calls and their results,
// reasoning, attachments, errors, and messages with an unknown role between turns.

const PATHS = ['src/a.ts', 'src/b.ts', './src/a.ts', 'README.md'];
const word = fc.constantFrom('fix', 'the', 'build', 'test', 'error', 'read', 'file', 'done', 'ok', 'é', '日本', '🙂');
const text = (max: number) => fc.array(word, { minLength: 1, maxLength: max }).map((w) => w.join(' '));
/** Sometimes large enough for mask-observations (800 bytes) and worth a checkpoint. */
const body = fc.oneof(
  text(12),
  fc.tuple(text(8), fc.integer({ min: 20, max: 120 })).map(([t, n]) => `${t}\n`.repeat(n)),
);
const image: fc.Arbitrary<ContentPart> = fc
  .integer({ min: 10, max: 400 })
  .map((n) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0K'.repeat(n)}` } }));
const line = fc.integer({ min: 1, max: 60 });

const toolCall: fc.Arbitrary<{ name: string; args: Record<string, unknown> }> = fc.oneof(
  fc.record({
    name: fc.constant('Read'),
    args: fc.record({ file_path: fc.constantFrom(...PATHS), offset: line, limit: line }, { requiredKeys: ['file_path'] }),
  }),
  fc.record({
    name: fc.constant('read_file'),
    args: fc.record({ path: fc.constantFrom(...PATHS), start_line: line, end_line: fc.integer({ min: 60, max: 120 }) }),
  }),
  fc.record({ name: fc.constant('Glob'), args: fc.record({ pattern: fc.constantFrom('*.ts', '**/*.md') }) }),
  fc.record({ name: fc.constant('Grep'), args: fc.record({ pattern: fc.constantFrom('TODO', 'fix'), path: fc.constantFrom('src', '.') }) }),
  fc.record({ name: fc.constant('Bash'), args: fc.record({ command: fc.constantFrom('npm test', 'make', 'ls -la', 'git status') }) }),
  fc.record({ name: fc.constant('Edit'), args: fc.record({ file_path: fc.constantFrom(...PATHS), old_string: text(2), new_string: text(2) }) }),
  fc.record({ name: fc.constant('Write'), args: fc.record({ file_path: fc.constantFrom(...PATHS), content: text(4) }) }),
  fc.record({
    name: fc.constant('TodoWrite'),
    args: fc.record({ todos: fc.array(fc.record({ content: text(3), status: fc.constantFrom('pending', 'in_progress', 'completed') }), { maxLength: 3 }) }),
  }),
  fc.record({ name: fc.constant('get_user'), args: fc.record({ user_id: fc.constantFrom('u1', 'u2') }) }),
);

interface StepShape {
  content: string | null;
  reasoning?: string;
  calls: { name: string; args: Record<string, unknown>; result: string | ContentPart[]; isError: boolean }[];
}
const step: fc.Arbitrary<StepShape> = fc.record(
  {
    content: fc.option(text(10), { nil: null }),
    reasoning: text(20),
    calls: fc.array(
      fc
        .record({
          call: toolCall,
          result: fc.oneof(
            { weight: 5, arbitrary: body },
            { weight: 1, arbitrary: fc.tuple(text(3), image).map(([t, i]): ContentPart[] => [{ type: 'text', text: t }, i]) },
          ),
          isError: fc.boolean(),
        })
        .map((c) => ({ ...c.call, result: c.result, isError: c.isError })),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ['content', 'calls'] },
);
const turn = fc.record({
  request: fc.oneof(
    { weight: 4, arbitrary: text(15) },
    { weight: 1, arbitrary: fc.tuple(text(5), image).map(([t, i]): ContentPart[] => [{ type: 'text', text: t }, i]) },
  ),
  steps: fc.array(step, { maxLength: 4 }),
  answer: fc.option(text(10), { nil: undefined }),
  unknownAfter: fc.boolean(),
});

const generated: fc.Arbitrary<Transcript> = fc
  .record({ system: fc.option(text(20), { nil: undefined }), turns: fc.array(turn, { maxLength: 6 }), defineTools: fc.boolean() })
  .map(({ system, turns, defineTools }) => {
    const messages: Message[] = system === undefined ? [] : [{ role: 'system', content: system }];
    let id = 0;
    const used = new Set<string>();
    for (const t of turns) {
      messages.push({ role: 'user', content: t.request });
      for (const s of t.steps) {
        const calls: ToolCall[] = s.calls.map((c) => ({ id: `call_${id++}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
        if (s.content === null && calls.length === 0 && s.reasoning === undefined) continue;
        const a: AssistantMessage = { role: 'assistant', content: s.content };
        if (s.reasoning !== undefined) a.reasoning_content = s.reasoning;
        if (calls.length > 0) a.tool_calls = calls;
        messages.push(a);
        s.calls.forEach((c, i) => {
          used.add(c.name);
          const r: ToolMessage = { role: 'tool', tool_call_id: calls[i].id, content: c.result };
          if (c.isError) r.is_error = true;
          messages.push(r);
        });
      }
      if (t.answer !== undefined) messages.push({ role: 'assistant', content: t.answer });
      if (t.unknownAfter) messages.push({ role: 'critic', content: 'looks fine' });
    }
    const t: Transcript = { id: 'gen', messages };
    if (defineTools) t.tools = ['Read', 'Bash', 'WebFetch', ...used].map((name) => ({ type: 'function', function: { name } }));
    return t;
  });

// ---- The properties.

// The synchronous strategies; the LLM steps' properties are tested against the loopback server (test/strategies/llm).
const NAMES = Object.keys(STRATEGIES).filter((name) => !STRATEGIES[name].async);
const WINDOWS = [300, 2_000, 200_000];
const roundTrip = (t: Transcript): Transcript => JSON.parse(JSON.stringify(t)) as Transcript;

/** The protected tail: last whole turns, last messages, last tool results (the budget's three parts). */
interface Tail {
  keepLast: number;
  keepMessages: number;
  keepResults: number;
}
const anyTail = fc.record({
  keepLast: fc.integer({ min: 0, max: 2 }),
  keepMessages: fc.integer({ min: 0, max: 12 }),
  keepResults: fc.integer({ min: 0, max: 12 }),
});

function stepsOf(names: readonly string[], tail: Tail, window: number): PipelineStep[] {
  const config = parseCompactConfig({ ...tail, window });
  return names.map((n) => stepFor(n, config));
}

/** Every invariant of one compaction: validity, last request intact, no token growth, exact restore. */
function checkCompaction(input: Transcript, steps: PipelineStep[], window: number): Transcript {
  const ctx = { ...makeContext(), window };
  const r = compactTranscript(input, steps, ctx);
  const out = r.transcript;
  expect(findViolations(out.messages)).toEqual([]);
  const last = lastUserRequestIndex(input.messages);
  if (last >= 0) expect(out.messages[lastUserRequestIndex(out.messages)]).toBe(input.messages[last]);
  expect(r.tokensAfter).toBeLessThanOrEqual(r.tokensBefore);
  expect(r.steps.reduce((n, s) => n + s.tokensSaved, 0)).toBe(r.tokensBefore - r.tokensAfter);
  const back = restoreTranscript(roundTrip(out), ctx.refs!);
  expect(back.ok).toBe(true);
  if (back.ok) {
    expect(back.value).toEqual(input);
    expect(JSON.stringify(back.value)).toBe(JSON.stringify(input));
  }
  return out;
}

describe('properties of every strategy and composition', () => {
  let real: Transcript[] = [];
  beforeAll(async () => {
    // A strategy that loads what it needs before it runs (redact-secrets' rules) is prepared once, as the pipeline
    // prepares it in each worker: the file must not rely on another file of the same process having loaded it.
    await prepareStrategies(Object.values(STRATEGIES));
    const all = await bundledTranscripts();
    // Every 10th bundled transcript: Claude Code sessions and tau-bench runs, small and large.
    real = deepFreeze(all.filter((_, i) => i % 10 === 0));
  });
  const anyTranscript = () => fc.oneof({ weight: 4, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...real) });

  it('generates valid transcripts', () => {
    fc.assert(
      fc.property(generated, (t) => {
        expect(findViolations(t.messages)).toEqual([]);
      }),
      { numRuns: 200 },
    );
    expect(real.length).toBeGreaterThan(15);
  });

  for (const name of NAMES) {
    it(`${name}: valid, last request intact, no token growth, idempotent, exact restore`, () => {
      fc.assert(
        fc.property(anyTranscript(), anyTail, fc.constantFrom(...WINDOWS), (input, tail, window) => {
          const steps = stepsOf([name], tail, window);
          const once = checkCompaction(deepFreeze(input), steps, window);
          const twice = compactTranscript(once, steps, { ...makeContext(), window });
          expect(twice.transcript).toBe(once);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('random compositions keep every invariant and restore exactly', () => {
    fc.assert(
      fc.property(
        anyTranscript(),
        fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }),
        anyTail,
        fc.constantFrom(...WINDOWS),
        (input, names, tail, window) => {
          checkCompaction(deepFreeze(input), stepsOf(names, tail, window), window);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('auto keeps every invariant, restores exactly, and compacting its output again changes nothing', () => {
    fc.assert(
      fc.property(anyTranscript(), anyTail, fc.constantFrom(...WINDOWS), (input, tail, window) => {
        const steps = buildSteps(parseCompactConfig({ ...tail, window }));
        const once = checkCompaction(deepFreeze(input), steps, window);
        const again = compactTranscript(roundTrip(once), steps, { ...makeContext(), window });
        expect(JSON.stringify(again.transcript)).toBe(JSON.stringify(once));
      }),
      { numRuns: 80 },
    );
  });

  it('the tail budget never splits a call from its result, and the span around it keeps the last request verbatim', () => {
    fc.assert(
      fc.property(anyTranscript(), anyTail, (input, tail) => {
        const messages = input.messages;
        const range = protectedRange(messages, tail);
        // The tail holds at least the last keepMessages messages and never starts with a tool result (inside the middle).
        expect(range.tailStart).toBeLessThanOrEqual(Math.max(range.headEnd, messages.length - tail.keepMessages));
        if (range.tailStart > range.headEnd && range.tailStart < messages.length) expect(messages[range.tailStart].role).not.toBe('tool');
        expect(range.lastRequest).toBe(lastUserRequestIndex(messages));
        const span = replaceableSpan(messages, tail, () => undefined);
        if (!span) return;
        const replaced = replacedMessages(messages, span);
        expect(replaced).not.toContain(messages[range.lastRequest]);
        // Every call in the span has its results in the span, and every result its call.
        if (findViolations(messages).length === 0) expect(findViolations(replaced)).toEqual([]);
        const out = compactTranscript(deepFreeze(input), [stepFor('checkpoint', parseCompactConfig(tail))], makeContext()).transcript.messages;
        const last = lastUserRequestIndex(messages);
        if (last >= 0) expect(out[lastUserRequestIndex(out)]).toBe(messages[last]);
        expect(findViolations(out).length).toBeLessThanOrEqual(findViolations(messages).length);
      }),
      { numRuns: 300 },
    );
  });
});
