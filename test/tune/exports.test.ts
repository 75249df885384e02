import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { type ModelMessage, pruneMessages } from 'ai';
import { ClearToolUsesEdit, contextEditingMiddleware, createAgent, createMiddleware, tool as langChainTool } from 'langchain';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.js';
import { recordedGenerateTextLoop } from '../helpers/scripted-ai-sdk.js';
import { replayedMessages, resultsOf, toolNames } from '../adapters/session-loop.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { contentText } from '../../src/model/content.js';
import { type Message, isAssistant, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { replay } from '../../src/replay/replay.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import type { TuneReport } from '../../src/tune/tune-run.js';
import { runMain } from '../helpers/cli-in-process.js';
import { ROOT } from '../helpers/paths.js';
import { groupToolResults, inCallOrder, plain, saidOf, saidOfLangChain, toLangChainInput, toLangChainReply } from '../helpers/runtime-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import { claudeCodeWithLongSessionHead } from '../helpers/long-session.js';
import { policyEnv } from '../helpers/policy-env.js';

const WINDOWS = [60_000, 3_000];
/**
 * What `tune` reads at each window: the bundled Claude Code sessions with the long one cut short, as Claude Code leaves
 * it part way through. At 60,000 tokens, its first 1,600 lines alone: the shortest cut whose history passes the window
 * often enough for LangChain's clears, kept in the history, to keep the prompt cache where Anthropic's break it (the
 * whole session shows the same at twice the cost). At 3,000, every bundled session (short, subagent, tool-heavy, the
 * long one's subagents) with the long one's first 600 lines: each reaches that window, with parallel calls.
 */
const LINES_AT = new Map([
  [60_000, 1_600],
  [3_000, 600],
]);
/**
 * The candidate the whole grid recommends at each window on that input, and so the one whose exports `tune` writes: tune
 * replays it alone (`--candidate`), with the baselines and the frontier, and writes the same exports byte for byte as
 * the whole grid's 47 candidates (compared when the input was chosen), for a third less of this file's setup. Which
 * candidate the whole grid recommends is test/tune/tune.test.ts's to hold; these tests hold the exports to the runtimes.
 */
const RECOMMENDED_AT = new Map([
  [60_000, 'tcompact-cache'],
  [3_000, 'clear@0.75-keep10-at-least'],
]);
const tok = getTokenizer('o200k_base');

/** The exports `tune` wrote at each window, and the sessions it read. */
const exportsDir = new Map<number, string>();
const transcriptsAt = new Map<number, Transcript[]>();

beforeAll(async () => {
  const dir = tempDir('tune-exports');
  for (const window of WINDOWS) {
    const input = claudeCodeWithLongSessionHead(join(dir, `input-${window}`), LINES_AT.get(window)!, { alone: window === 60_000 });
    const out = join(dir, String(window));
    const run = await runMain(['tune', input, '--window', String(window), '--out', out, '--workers', '1', '--candidate', RECOMMENDED_AT.get(window)!]);
    if (run.code !== 0) throw new Error(`tune --window ${window}: exit ${run.code}: ${run.stderr}`);
    exportsDir.set(window, join(out, 'exports'));
    const transcripts: Transcript[] = [];
    for await (const item of readInputs([input], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') transcripts.push(item.transcript);
    transcriptsAt.set(
      window,
      transcripts.filter((t) => t.messages.some(isAssistant)),
    );
  }
});

const fileOf = (window: number, runtime: string) => join(exportsDir.get(window)!, `${runtime}.json`);
const settingsOf = (window: number, runtime: string): unknown => JSON.parse(readFileSync(fileOf(window, runtime), 'utf8'));

/** Every prompt the replay sends under `policy`, as its micro-compaction left it. */
async function replayedPrompts(t: Transcript, policy: string, window: number): Promise<Message[][]> {
  const instance = resolvePolicy(policy, tok).instantiate(policyEnv({ tokenizer: tok, window }));
  const micro = instance.micro!;
  const prompts: Message[][] = [];
  await replay(
    t,
    {
      ...instance,
      micro: async (request) => {
        const out = await micro(request);
        prompts.push([...out.messages]);
        return out;
      },
    },
    { tokenizer: tok, window, cache: CACHE_RULES.ideal },
  );
  return prompts;
}

/** How many messages came before each call. */
const historyAtCalls = (t: Transcript) => replayedMessages(t).flatMap((m, i) => (isAssistant(m) ? [i] : []));

describe('tune exports, handed unchanged to the real runtimes', () => {
  it('each export type-checks as the argument of its runtime API', () => {
    const lines = [
      "import Anthropic from '@anthropic-ai/sdk';",
      "import { type ModelMessage, pruneMessages } from 'ai';",
      "import { ClearToolUsesEdit, contextEditingMiddleware } from 'langchain';",
      'declare const client: Anthropic;',
      'declare const messages: ModelMessage[];',
    ];
    for (const window of WINDOWS) {
      const text = (runtime: string) => readFileSync(fileOf(window, runtime), 'utf8').trim();
      lines.push(
        `export const anthropic${window} = client.beta.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [], betas: ['context-management-2025-06-27'], context_management: ${text('anthropic')} });`,
        `export const langchain${window} = contextEditingMiddleware({ edits: [new ClearToolUsesEdit(${text('langchain')})], tokenCountMethod: 'approx' });`,
        `const aiSdk${window}: Omit<Parameters<typeof pruneMessages>[0], 'messages'> = ${text('ai-sdk')};`,
        `export const pruned${window} = pruneMessages({ messages, ...aiSdk${window} });`,
      );
    }
    expect(typeErrors(lines.join('\n'))).toEqual([]);
  }, 180_000);

  it.each(WINDOWS)('replays only the candidate named at --window %i, and exports it', (window) => {
    const report = JSON.parse(readFileSync(join(exportsDir.get(window)!, '..', 'tune.json'), 'utf8')) as TuneReport;
    expect(report.candidates.map((c) => c.name)).toEqual([RECOMMENDED_AT.get(window)]);
    expect(report.recommended.name).toBe(RECOMMENDED_AT.get(window));
    expect(report.exports.map((e) => e.runtime).sort()).toEqual(['ai-sdk', 'anthropic', 'langchain', 'tcompact']);
  });

  it('refuses a candidate the grid does not hold, naming the ones it does', async () => {
    const input = join('datasets', 'bundled', 'claude-code', 'subagent.jsonl');
    const out = tempDir('tune-unknown-candidate');
    const run = await runMain(['tune', input, '--window', '3000', '--tokenizer', 'heuristic', '--out', out, '--candidate', 'clear@0.6-keep3']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('E_CONFIG: tune options: no candidate clear@0.6-keep3 in the grid of this archive and window: clear@0.1-keep3, ');
    expect(run.stderr).toContain('tcompact-at-trigger');
  });

  it("reports LangChain's export with its own replay: at --window 60000 its clears, kept in the history, keep the prompt cache", () => {
    const report = JSON.parse(readFileSync(join(exportsDir.get(60_000)!, '..', 'tune.json'), 'utf8')) as TuneReport;
    const [anthropic, langchain] = ['anthropic', 'langchain'].map((r) => report.exports.find((e) => e.runtime === r)!);
    expect(langchain.exact).toBe(false);
    expect(langchain.cost.withCache).toBeLessThan(anthropic.cost.withCache);
  });

  it.each(WINDOWS)('anthropic.json at --window %i goes out unchanged as the beta context_management, with the beta header', async (window) => {
    const settings = settingsOf(window, 'anthropic') as Anthropic.Beta.BetaContextManagementConfig;
    const sent: { body: Record<string, unknown>; beta: string | null }[] = [];
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://127.0.0.1:9',
      maxRetries: 0,
      fetch: async (_url: string | URL | Request, init?: RequestInit) => {
        sent.push({ body: JSON.parse(init!.body as string) as Record<string, unknown>, beta: new Headers(init!.headers).get('anthropic-beta') });
        const reply = {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
          context_management: { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: 300 }] },
        };
        return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const reply = await client.beta.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
      betas: ['context-management-2025-06-27'],
      context_management: settings,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].body.context_management).toEqual(settings);
    expect(sent[0].beta).toContain('context-management-2025-06-27');
    expect(reply.context_management?.applied_edits).toEqual([{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: 300 }]);
  });

  it.each(WINDOWS)(
    'langchain.json at --window %i: a createAgent with the context-editing middleware sends every prompt of the sessions tune read as the replay does',
    async (window) => {
      const settings = settingsOf(window, 'langchain') as ConstructorParameters<typeof ClearToolUsesEdit>[0];
      let edited = 0;
      for (const t of transcriptsAt.get(window)!) {
        const theirs = await langChainPrompts(t, settings);
        const ours = await replayedPrompts(t, `langchain:${fileOf(window, 'langchain')}`, window);
        expect(theirs.length).toBe(ours.length);
        ours.forEach((prompt, call) => {
          expect(theirs[call].map(saidOfLangChain), `${t.id}, call ${call}`).toEqual(inCallOrder(prompt).map(saidOf));
          if (prompt.some((m) => isTool(m) && m.content === '[cleared]')) edited++;
        });
      }
      expect(edited).toBeGreaterThan(0);
    },
    180_000,
  );

  it.each(WINDOWS)(
    'ai-sdk.json at --window %i: pruneMessages in a generateText loop prunes every prompt of the sessions tune read as the replay does',
    async (window) => {
      const settings = settingsOf(window, 'ai-sdk') as Omit<Parameters<typeof pruneMessages>[0], 'messages'>;
      let edited = 0;
      let parallel = 0;
      for (const t of transcriptsAt.get(window)!) {
        const theirs = await aiSdkPrompts(t, settings);
        const ours = await replayedPrompts(t, `ai-sdk:${fileOf(window, 'ai-sdk')}`, window);
        expect(theirs.length).toBe(ours.length);
        const history = historyAtCalls(t);
        ours.forEach((prompt, call) => {
          const expected = groupToolResults(toModelMessages(inCallOrder(prompt)));
          // The deep comparison runs only where the JSON texts differ (equal texts parse to equal values), to report the
          // difference: it cost the most of this loop.
          if (JSON.stringify(theirs[call]) !== JSON.stringify(expected)) expect(theirs[call], `${t.id}, call ${call}`).toEqual(plain(expected));
          if (prompt.length < history[call]) edited++;
        });
        parallel += theirs.flat().filter((m) => m.role === 'tool' && m.content.length > 1).length;
      }
      expect(edited).toBeGreaterThan(0);
      // The sessions make parallel calls: a step's results are one tool message in the SDK.
      expect(parallel).toBeGreaterThan(0);
    },
    180_000,
  );
});

/**
 * Type errors of a TypeScript source compiled beside the tests, with the project's options (nothing is written). The
 * declaration checks are left out: they ask whether a .d.ts could be emitted, not whether the exports fit their API, and
 * cost a quarter of the check.
 */
function typeErrors(source: string): string[] {
  const file = join(ROOT, 'test', 'tune', 'exports-fixture.ts');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p)).config, ts.sys, ROOT);
  const options = { ...config.options, noEmit: true, declaration: false };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** A chat model that answers each call with the session's next recorded reply, and keeps the prompts it was sent. */
class ScriptedChatModel extends BaseChatModel {
  constructor(
    private readonly next: () => Message,
    readonly prompts: BaseMessage[][],
  ) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.prompts.push([...messages]);
    const message = toLangChainReply(this.next());
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }

  override bindTools(): this {
    return this;
  }
}

/**
 * The session run as a LangChain agent: each user turn is an invoke on the messages the last one returned (the agent's
 * state, as its middleware left it) and the user's new ones; the model answers with the recorded replies, each tool with
 * its recorded result, and the agent ends a turn where the session's user spoke next.
 */
async function langChainPrompts(t: Transcript, settings: ConstructorParameters<typeof ClearToolUsesEdit>[0]): Promise<BaseMessage[][]> {
  const messages = replayedMessages(t);
  const results = resultsOf(messages);
  let at = 0;
  const model = new ScriptedChatModel(() => messages[at++], []);
  const tools = toolNames(messages).map((name) =>
    langChainTool((_input: unknown, config: { toolCall?: { id?: string } }) => contentText(results.get(config.toolCall!.id!)!.content), {
      name,
      description: name,
      schema: z.looseObject({}),
    }),
  );
  const turns = createMiddleware({
    name: 'RecordedTurns',
    beforeModel: {
      canJumpTo: ['end'],
      hook: () => {
        while (at < messages.length && isTool(messages[at])) at++;
        return at < messages.length && isAssistant(messages[at]) ? undefined : { jumpTo: 'end' as const };
      },
    },
  });
  const agent = createAgent({
    model,
    tools,
    middleware: [turns, contextEditingMiddleware({ edits: [new ClearToolUsesEdit(settings)], tokenCountMethod: 'approx' })],
  });
  let state: BaseMessage[] = [];
  while (at < messages.length) {
    const input: BaseMessage[] = [];
    while (at < messages.length && !isAssistant(messages[at])) input.push(toLangChainInput(messages[at++]));
    if (at >= messages.length) break;
    state = (await agent.invoke({ messages: [...state, ...input] }, { recursionLimit: 100_000 })).messages;
  }
  return model.prompts;
}

/**
 * The session run as an AI SDK agent: each user turn is a generateText call on the whole history, which it prunes
 * before every step (`prepareStep`), the model answering with the recorded replies and each tool with its recorded
 * result (a failure where the session recorded one); the loop stops where the session's user spoke next.
 */
async function aiSdkPrompts(t: Transcript, settings: Omit<Parameters<typeof pruneMessages>[0], 'messages'>): Promise<ModelMessage[][]> {
  const prompts: ModelMessage[][] = [];
  await recordedGenerateTextLoop(replayedMessages(t), ({ messages: step }) => {
    const pruned = pruneMessages({ messages: step, ...settings });
    prompts.push(plain(pruned));
    return { messages: pruned };
  });
  return prompts;
}
