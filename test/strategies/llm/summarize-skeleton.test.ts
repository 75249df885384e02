import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { RefSink } from '../../../src/refs/ref-store.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { LAST_TURN, assistant, call, result, sys, transcript, user } from '../../helpers/transcript-kit.js';
import { SkippingClock } from '../../llm/fake-clock.js';
import { type FakeServer, startFakeOpenAI } from '../../llm/fake-openai-server.js';
import { type LlmSteps, createLlmSteps } from './llm-steps.js';

const tok = getTokenizer('o200k_base');
const source = Array.from({ length: 80 }, (_, i) => `export const v${i} = ${i};`).join('\n');

/** Twelve files read and two edited, and three commands, one failing: more paths than the fake model's summary names (8), and commands it never names. */
const PATHS = Array.from({ length: 12 }, (_, i) => `/repo/src/mod${i}.ts`);
const COMMANDS = ['npm run build', 'npx vitest run test/mod.test.ts', 'npm run lint'];

function session(): Transcript {
  const messages: Message[] = [sys('You are a coding agent.'), user('Refactor the modules under /repo/src and keep the tests green.')];
  PATHS.forEach((p, i) => {
    messages.push(assistant(null, { tool_calls: [call(`r${i}`, 'Read', { file_path: p })] }), result(`r${i}`, source));
  });
  messages.push(
    assistant(null, { tool_calls: [call('e1', 'Edit', { file_path: PATHS[10], old_string: 'v1 = 1', new_string: 'v1 = 2' })] }),
    result('e1', `The file ${PATHS[10]} has been updated.`),
    assistant(null, { tool_calls: [call('e2', 'Edit', { file_path: PATHS[11], old_string: 'v2 = 2', new_string: 'v2 = 3' })] }),
    result('e2', `The file ${PATHS[11]} has been updated.`),
  );
  COMMANDS.forEach((command, i) => {
    const failed = command === 'npm run lint';
    messages.push(
      assistant(null, { tool_calls: [call(`b${i}`, 'Bash', { command })] }),
      result(`b${i}`, failed ? 'Exit code 1\nsrc/mod11.ts:3:1 error Unexpected var' : 'done', failed ? { is_error: true } : {}),
    );
  });
  messages.push(user('Now fix the lint error.'), assistant('On it.'));
  return transcript(messages, { id: 'skeleton' });
}

let server: FakeServer | undefined;
let steps: LlmSteps | undefined;
afterEach(async () => {
  await steps?.close();
  await server?.close();
  server = undefined;
  steps = undefined;
});

async function summarized(skeleton?: boolean) {
  server = await startFakeOpenAI();
  steps = await createLlmSteps(
    { model: 'gpt-4o-mini', baseURL: server.baseURL, apiKey: 'test', ...LAST_TURN, ...(skeleton === undefined ? {} : { skeleton }) },
    { clock: new SkippingClock(), random: seededRandom(3) },
  );
  const out = await steps.summarize(session(), { tokenizer: tok, refs: new RefSink(), window: 200_000 });
  const summary = out.transcript.messages.find((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact summary'))?.content as string;
  return { out, summary, prompt: server.requests[0].body.messages.find((m) => m.role === 'user')!.content };
}

describe("summarize on the checkpoint's skeleton", () => {
  it('by default, sends the salient lists with the span and keeps every listed path, command and error in its summary', async () => {
    const { out, summary, prompt } = await summarized();
    expect(out.llm.outcome).toBe('summarized');
    const listed = prompt.slice(prompt.indexOf('<checkpoint>'), prompt.indexOf('</checkpoint>'));
    for (const p of PATHS) expect(listed).toContain(p);
    for (const c of COMMANDS) expect(listed).toContain(c);
    expect(listed).toContain('- FAILED `npm run lint`: src/mod11.ts:3:1 error Unexpected var');
    expect(prompt).toContain('keep every path, command, error line and open task it lists');
    // The fake model names the first 8 paths it sees and no command: the rest comes from the skeleton, below its prose.
    for (const p of PATHS) expect(summary).toContain(p);
    for (const c of COMMANDS) expect(summary).toContain(c);
    expect(summary).toContain('## From the checkpoint (facts the summary above leaves out)');
    expect(summary.indexOf('## Next step')).toBeLessThan(summary.indexOf('## From the checkpoint'));
    expect(summary).not.toContain(`- ${PATHS[0]} (read)\n`);
  });

  it('without the skeleton: no lists in the request, and the summary loses what the model left out', async () => {
    const { summary, prompt } = await summarized(false);
    expect(prompt).not.toContain('<checkpoint>');
    expect(summary).not.toContain('## From the checkpoint');
    expect(PATHS.filter((p) => !summary.includes(p)).length).toBeGreaterThan(0);
    expect(COMMANDS.filter((c) => !summary.includes(c)).length).toBeGreaterThan(0);
  });
});
