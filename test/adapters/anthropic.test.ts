import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromAnthropic, toAnthropic, toAnthropicBlocks } from '../../src/adapters/anthropic/anthropic-messages.js';
import { MAX_BREAKPOINTS, tcompactAnthropic } from '../../src/adapters/anthropic/edit-params.js';
import type { CheckReport } from '../../src/adapters/conversation.js';
import type { ContextManagerOptionsInput } from '../../src/context/options.js';
import { type Message, isAssistant, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { inCallOrder } from '../helpers/runtime-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  CONFIGS,
  FIXTURE,
  LOOPS,
  type Branch,
  asRuntimeHolds,
  branchesOf,
  clockOf,
  bundledSessions,
  flagsAsHeld,
  inSessionOrder,
  loopSessions,
  costOfPrompts,
  costOfReplay,
  replayOf,
  resultsOf,
  sameRefs,
  memo,
  promptComparer,
  RunMemo,
  writeConfig,
} from './session-loop.js';

let sessions: Transcript[] = [];
beforeAll(async () => {
  sessions = await loopSessions();
});

type Body = { messages: Anthropic.MessageParam[] };

/** The body without its breakpoints: what the model reads. */
const unmarked = (body: Body): Anthropic.MessageParam[] =>
  JSON.parse(JSON.stringify(body.messages).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '')) as Anthropic.MessageParam[];
const breakpoints = (text: string) => (text.match(/"cache_control":\{/g) ?? []).length;

/**
 * The session run with the Anthropic SDK: before each call the editor edits the params of the whole history; the SDK
 * sends them to a local fetch that keeps the body and answers with the session's next recorded reply; each tool call is
 * answered with its recorded result; a user turn ends where the session's user spoke next.
 */
async function anthropicLoop(
  branch: Branch,
  options: ContextManagerOptionsInput,
  reports: CheckReport[],
): Promise<{ bodies: string[]; history: Anthropic.MessageParam[] }> {
  const messages = branch.messages;
  const results = resultsOf(messages);
  let at = 0;
  const bodies: string[] = [];
  const client = new Anthropic({
    apiKey: 'test',
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async (_url: string | URL | Request, init?: RequestInit) => {
      bodies.push(init!.body as string);
      const reply = messages[at++];
      if (!isAssistant(reply)) throw new Error(`expected an assistant message, got ${reply.role}`);
      const calls = reply.tool_calls ?? [];
      const body = {
        id: `msg_${at}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: toAnthropicBlocks(reply).blocks,
        stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  const edit = tcompactAnthropic(options, { now: clockOf(branch.times), onCheck: (r) => reports.push(r) });
  const history: Anthropic.MessageParam[] = toAnthropic(branch.start);
  while (at < messages.length) {
    while (at < messages.length && !isAssistant(messages[at])) history.push(...toAnthropic([messages[at++]]));
    while (at < messages.length && isAssistant(messages[at])) {
      const reply = await client.messages.create(await edit({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: history }));
      history.push({ role: 'assistant', content: reply.content as Anthropic.ContentBlockParam[] });
      const calls = reply.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (calls.length > 0) history.push(...toAnthropic(calls.map((id) => results.get(id)!)));
      while (at < messages.length && isTool(messages[at])) at++;
    }
  }
  return { bodies, history };
}

/**
 * The session's loops: each branch of a forked session a conversation of its own, under an editor of its own. Returns
 * every body sent, in the session's order, and each branch's bodies and reports.
 */
async function anthropicSession(
  t: Transcript,
  options: ContextManagerOptionsInput,
): Promise<{ bodies: string[]; reports: CheckReport[]; branches: { bodies: string[]; reports: CheckReport[] }[] }> {
  const { branches, order } = branchesOf(t);
  const runs = [];
  for (const branch of branches) {
    const reports: CheckReport[] = [];
    runs.push({ bodies: (await anthropicLoop(branch, options, reports)).bodies, reports });
  }
  return {
    bodies: inSessionOrder(
      runs.map((r) => r.bodies),
      order,
    ),
    reports: runs.flatMap((r) => r.reports),
    branches: runs,
  };
}

/** A message through the SDK's params and back: what the runtime holds of it. */
const roundTrip = (m: Message) => fromAnthropic(toAnthropic([m]));

/**
 * The edits loop of each session, its results' flags as the SDK holds them, run once: the loop test and the breakpoint
 * test both read it.
 */
const editsRuns = new Map<string, ReturnType<typeof anthropicSession>>();
function editsRunOf(recorded: Transcript): ReturnType<typeof anthropicSession> {
  let run = editsRuns.get(recorded.id);
  if (run === undefined) editsRuns.set(recorded.id, (run = anthropicSession(flagsAsHeld(recorded, roundTrip), CONFIGS.edits)));
  return run;
}

describe('tcompact/anthropic: fromAnthropic', () => {
  it('joins no empty thinking block into the reasoning: it is a thinking block without text, counted, and given back', () => {
    const m: Anthropic.MessageParam = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: '', signature: '' },
        { type: 'thinking', thinking: 'abc', signature: '' },
        { type: 'text', text: 'done' },
      ],
    };
    const [a] = fromAnthropic([m]);
    expect(a).toEqual({ role: 'assistant', content: 'done', reasoning_content: 'abc', thinking_blocks_without_text: 1 });
    expect(toAnthropic([a])).toEqual([m]);
  });
});

describe('tcompact/anthropic: tcompactAnthropic before each messages.create', () => {
  it.each(LOOPS)(
    'with the $name options, the SDK sends at each call of every bundled Claude Code session the prompt `simulate --policy config:FILE` replays, at the cost it states',
    async ({ options, runtimeView }) => {
      const config = writeConfig(tempDir('anthropic-loop'), 'tcompact', options);
      let edited = 0;
      for (const recorded of sessions) {
        const t = runtimeView ? asRuntimeHolds(recorded, roundTrip) : flagsAsHeld(recorded, roundTrip);
        const { bodies, reports } = await (options === CONFIGS.edits ? editsRunOf(recorded) : anthropicSession(t, options));
        // Each message of a body unmarked once per text: the bodies of a session repeat most of their messages.
        const unmarkedOf = new Map<string, Anthropic.MessageParam>();
        const sent = bodies.map((b) =>
          (JSON.parse(b) as Body).messages.map((m) => {
            const text = JSON.stringify(m);
            let message = unmarkedOf.get(text);
            if (message === undefined) unmarkedOf.set(text, (message = unmarked({ messages: [m] })[0]));
            return message;
          }),
        );
        const ours = await replayOf(t, config, options.window);
        expect(sent.length, t.id).toBe(ours.prompts.length);
        // toAnthropic(prompt), converted once per run of a message and the tool results joined after it.
        const expected = new RunMemo(
          (m) => !isTool(m),
          (run) => toAnthropic(run),
        );
        const samePrompt = promptComparer();
        ours.prompts.forEach((prompt, call) => {
          samePrompt(sent[call], expected.of(inCallOrder(prompt)), `${t.id}, call ${call}`);
        });
        expect(costOfPrompts(t, ours.prompts)).toEqual(costOfReplay(ours.stats));
        const canonical = memo((m: Anthropic.MessageParam) => fromAnthropic([m]));
        expect(
          costOfPrompts(
            t,
            sent.map((s) => sameRefs(s.flatMap(canonical))),
          ),
        ).toEqual(costOfPrompts(t, ours.prompts.map(sameRefs)));
        edited += reports.filter((r) => r.reason !== 'none').length;
      }
      expect(edited).toBeGreaterThan(0);
    },
    180_000,
  );

  it('keeps an explicit `is_error: false`: results that say `error:` on their first line but did not fail are checkpointed as ok, as the replay does', async () => {
    const [recorded] = await bundledSessions([FIXTURE('is-error-false')]);
    expect(recorded.messages.filter(isTool).map((m) => roundTrip(m)[0])).toEqual(
      recorded.messages
        .filter(isTool)
        .map(({ tool_call_id, content, is_error }) =>
          is_error === undefined ? { role: 'tool', tool_call_id, content } : { role: 'tool', tool_call_id, content, is_error },
        ),
    );
    const t = asRuntimeHolds(recorded, roundTrip);
    const { bodies } = await anthropicSession(t, CONFIGS.compaction);
    const sent = bodies.join('\n');
    expect(sent).toContain('- ok `uv run serve');
    expect(sent).not.toContain('FAILED `uv run serve');
    // The one result flagged true is still a failure.
    expect(sent).toContain('FAILED `uv run pytest -x`');
  });

  it('sends at most 4 breakpoints, and the body before the first one is byte-identical from call to call between edits', async () => {
    let compared = 0;
    // The edits loop's runs: the sessions' flags as the SDK holds them are the flags recorded, in every session here.
    for (const t of sessions) {
      for (const { bodies, reports } of (await editsRunOf(t)).branches) {
        for (const body of bodies) expect(breakpoints(body)).toBeLessThanOrEqual(MAX_BREAKPOINTS);
        for (let call = 1; call < bodies.length; call++) {
          const [before, now] = [reports[call - 1], reports[call]];
          const unedited = now.reason === 'none' && !now.microCompacted && now.status !== 'compacted';
          if (!unedited || now.stableMessages === 0) continue;
          const prefix = (body: string) => body.slice(0, body.indexOf('"cache_control"'));
          expect(prefix(bodies[call]), `${t.id}, call ${call}`).toBe(prefix(bodies[call - 1]));
          expect(before.stableMessages).toBe(now.stableMessages);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(0);
  }, 180_000);
});
