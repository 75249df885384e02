import type { ModelMessage } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromModelMessages, toModelMessages } from '../../src/adapters/ai-sdk/model-messages.js';
import { recordedGenerateTextLoop } from '../helpers/scripted-ai-sdk.js';
import { tcompactPrepareStep } from '../../src/adapters/ai-sdk/prepare-step.js';
import type { CheckReport } from '../../src/adapters/conversation.js';
import type { ContextManagerOptionsInput } from '../../src/context/options.js';
import { type Message, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { inCallOrder } from '../helpers/runtime-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  LOOPS,
  type Branch,
  asRuntimeHolds,
  branchesOf,
  clockOf,
  flagsAsHeld,
  inSessionOrder,
  loopSessions,
  costOfPrompts,
  costOfReplay,
  replayOf,
  sameRefs,
  memo,
  promptComparer,
  writeConfig,
} from './session-loop.js';
import { modelMessagesOnce } from './model-messages-once.js';

let sessions: Transcript[] = [];
beforeAll(async () => {
  sessions = await loopSessions();
});

/**
 * The session run as an AI SDK agent under the adapter: each user turn is a generateText call on the whole history,
 * the model answering with the recorded replies and each tool with its recorded result (a failure where the session
 * recorded one); the loop stops where the session's user spoke next. Returns the messages of every step sent.
 */
async function aiSdkLoop(
  branch: Branch,
  options: ContextManagerOptionsInput,
  reports: CheckReport[] = [],
): Promise<{ sent: ModelMessage[][]; history: ModelMessage[] }> {
  const sent: ModelMessage[][] = [];
  const prepareStep = tcompactPrepareStep(options, { now: clockOf(branch.times), onCheck: (r) => reports.push(r) });
  const history = await recordedGenerateTextLoop(
    branch.messages,
    async (step) => {
      const prepared = await prepareStep(step);
      sent.push(prepared.messages);
      return prepared;
    },
    branch.start,
  );
  return { sent, history };
}

describe('tcompact/ai-sdk: fromModelMessage', () => {
  it('joins no empty reasoning part into the reasoning: it is a thinking block without text, counted, and given back', () => {
    const m: ModelMessage = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: '' },
        { type: 'reasoning', text: 'abc' },
        { type: 'text', text: 'done' },
      ],
    };
    const [a] = fromModelMessages([m]);
    expect(a).toEqual({ role: 'assistant', content: 'done', reasoning_content: 'abc', thinking_blocks_without_text: 1 });
    expect(toModelMessages([a])).toEqual([m]);
  });
});

describe('tcompact/ai-sdk: tcompactPrepareStep in a generateText loop', () => {
  it.each(LOOPS)(
    'with the $name options, sends at each step of every bundled Claude Code session the prompt `simulate --policy config:FILE` replays, at the cost it states',
    async ({ options, runtimeView }) => {
      const config = writeConfig(tempDir('ai-sdk-loop'), 'tcompact', options);
      let edited = 0;
      for (const recorded of sessions) {
        const roundTrip = (m: Message) => fromModelMessages(toModelMessages([m]));
        const t = runtimeView ? asRuntimeHolds(recorded, roundTrip) : flagsAsHeld(recorded, roundTrip);
        const reports: CheckReport[] = [];
        // Each branch of a forked session runs as a conversation of its own, under an adapter of its own.
        const { branches, order } = branchesOf(t);
        const runs = [];
        for (const branch of branches) runs.push(await aiSdkLoop(branch, options, reports));
        const sent = inSessionOrder(
          runs.map((r) => r.sent),
          order,
        );
        const ours = await replayOf(t, config, options.window);
        expect(sent.length, t.id).toBe(ours.prompts.length);
        const expected = modelMessagesOnce();
        const samePrompt = promptComparer();
        ours.prompts.forEach((prompt, call) => {
          samePrompt(sent[call], expected(inCallOrder(prompt)), `${t.id}, call ${call}`);
        });
        // The replay's stated cost is the cost of its prompts; the runtime's prompts cost the same, refs named alike.
        expect(costOfPrompts(t, ours.prompts)).toEqual(costOfReplay(ours.stats));
        const canonical = memo((m: ModelMessage) => fromModelMessages([m]));
        expect(
          costOfPrompts(
            t,
            sent.map((s) => sameRefs(s.flatMap(canonical))),
          ),
        ).toEqual(costOfPrompts(t, ours.prompts.map(sameRefs)));
        // The SDK's history stays whole: every result the session recorded is there as it was.
        runs.forEach(({ history }, b) => {
          expect(fromModelMessages(history).filter(isTool).length).toBe([...branches[b].start, ...branches[b].messages].filter(isTool).length);
        });
        edited += reports.filter((r) => r.reason !== 'none').length;
      }
      expect(edited).toBeGreaterThan(0);
    },
    180_000,
  );
});
