import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/seeded-random.js';
import { type LlmSteps, type StepTestOptions, createLlmSteps } from './llm-steps.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { findViolations } from '../../../src/model/validity.js';
import { RefSink } from '../../../src/refs/ref-store.js';
import type { StrategyContext } from '../../../src/strategies/types.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { LAST_TURN, assistant, call, result, sys, transcript, user } from '../../helpers/transcript-kit.js';
import { SkippingClock } from '../../llm/fake-clock.js';
import { type FakeServer, type FakeServerOptions, startFakeOpenAI } from '../../llm/fake-openai-server.js';

const ctxOf = (refs: RefSink | null = new RefSink()): StrategyContext => ({ tokenizer: getTokenizer('o200k_base'), refs, window: 200_000 });

/** Five turns; turn 3 (a weather question with a tool call) is the tangent. */
function session(): Transcript {
  return transcript([
    sys('You are a coding agent.'),
    user('Add input validation to /repo/src/form.ts.'),
    assistant('Reading the form.', { tool_calls: [call('a', 'Read', { file_path: '/repo/src/form.ts' })] }),
    result('a', 'export function submit(data) { send(data); }'),
    assistant('I added a check for empty fields.'),
    user('Also validate the email format.'),
    assistant('Done: the email is checked with a regular expression.'),
    user('By the way, what is the weather in Paris?'),
    assistant(null, { tool_calls: [call('w', 'WebSearch', { query: 'weather Paris' })] }),
    result('w', 'Sunny, 21 C.'),
    assistant('It is sunny in Paris.'),
    user('Run the tests.'),
    assistant(null, { tool_calls: [call('t', 'Bash', { command: 'npm test' })] }),
    result('t', '12 passed'),
    assistant('All 12 tests pass.'),
    user('Commit the change.'),
    assistant('Committed.'),
  ]);
}

let server: FakeServer | undefined;
let summarizer: LlmSteps | undefined;
afterEach(async () => {
  await summarizer?.close();
  await server?.close();
  server = summarizer = undefined;
});

async function setup(serverOptions: FakeServerOptions, options: StepTestOptions = {}) {
  server = await startFakeOpenAI(serverOptions);
  // The small hand-made sessions are framed by their last turn (LAST_TURN), as the other strategies' unit tests are.
  summarizer = await createLlmSteps(
    { model: 'gpt-4o-mini', baseURL: server.baseURL, apiKey: 'test', ...LAST_TURN, ...options },
    { clock: new SkippingClock(), random: seededRandom(5) },
  );
  return { server, summarizer };
}

describe('classify-tangents', () => {
  const tangents = () => [{ turn: 3, reason: 'A weather question unrelated to the form validation.' }];

  it('reports tangent turns with message ranges and reasons, and changes nothing by default', async () => {
    const { server, summarizer } = await setup({ tangents });
    const input = session();
    const out = await summarizer.classifyTangents(input, ctxOf());
    expect(out.transcript).toBe(input);
    expect(server.requests).toHaveLength(1);
    const prompt = server.requests[0].body.messages[1].content;
    expect(prompt).toContain('=== Turn 3 ===\n[#7 user]\nBy the way, what is the weather in Paris?');
    expect(prompt).toContain('The final task is the request of turn 5, the last turn.');
    expect(server.requests[0].body.max_tokens).toBe(1024);
    expect(out.llm).toMatchObject({ outcome: 'classified', tangents: [{ turn: 3, from: 7, to: 11, reason: tangents()[0].reason, removed: false }] });
    expect(out.notes).toEqual(['tangent turn 3 (messages #7-#10): A weather question unrelated to the form validation.']);
    expect(out.details).toMatchObject({ tangentTurns: 1, tangentTurnsRemoved: 0, llmRequests: 1 });
  });

  it('with removeTangents, replaces the whole turn by a placeholder whose ref holds it, keeping tool pairs valid', async () => {
    const { summarizer } = await setup({ tangents }, { remove: true });
    const input = session();
    const refs = new RefSink();
    const out = await summarizer.classifyTangents(input, ctxOf(refs));
    const m = out.transcript.messages;
    expect(findViolations(m)).toEqual([]);
    expect(m).toHaveLength(input.messages.length - 4 + 1);
    expect(m.slice(0, 7)).toEqual(input.messages.slice(0, 7));
    expect(m.slice(8)).toEqual(input.messages.slice(11));
    const placeholder = (m[7] as { content: string }).content;
    expect(placeholder).toMatch(/^\[tcompact removed tangent turn 3: 4 messages\] \(ref: [0-9a-f]{16}\)\nReason: A weather question/);
    const ref = /\(ref: ([0-9a-f]{16})\)/.exec(placeholder)![1];
    expect(JSON.parse(refs.get(ref)!)).toEqual(input.messages.slice(7, 11));
    expect(out).toMatchObject({ messagesRemoved: 4, details: { tangentTurnsRemoved: 1 } });
  });

  it('never removes the last turn or a turn in the kept head, even when the model names them', async () => {
    const { summarizer } = await setup(
      {
        tangents: () => [
          { turn: 1, reason: 'first' },
          { turn: 5, reason: 'last' },
        ],
      },
      { remove: true },
    );
    const input = session();
    const out = await summarizer.classifyTangents(input, ctxOf());
    expect(out.transcript).toBe(input);
    expect(out.llm.tangents).toEqual([{ turn: 1, from: 1, to: 5, reason: 'first', removed: false }]);
  });

  it('rejects answers that are not the JSON schema, then leaves the transcript unchanged and says why', async () => {
    const { server, summarizer } = await setup({
      faults: [
        { kind: 'text', text: 'Turn 3 looks like a tangent.' },
        { kind: 'text', text: '{"tangents": [{"turn": "three"}]}' },
        { kind: 'text', text: '{"tangents": [{"turn": 9, "reason": "x"}]}' },
      ],
    });
    const input = session();
    const out = await summarizer.classifyTangents(input, ctxOf());
    expect(server.requests).toHaveLength(3);
    expect(out.transcript).toBe(input);
    expect(out.llm.outcome).toBe('fallback');
    expect(out.llm.usage.rejections).toEqual([
      'the answer holds no JSON object',
      expect.stringMatching(/^the answer does not match the schema: /),
      'the answer names turn 9, but there are 5',
    ]);
  });

  it('accepts the JSON inside a code fence', async () => {
    const { summarizer } = await setup({ faults: [{ kind: 'text', text: '```json\n{"tangents": [{"turn": 3, "reason": "weather"}]}\n```' }] });
    const out = await summarizer.classifyTangents(session(), ctxOf());
    expect(out.llm.tangents).toEqual([{ turn: 3, from: 7, to: 11, reason: 'weather', removed: false }]);
  });
});
