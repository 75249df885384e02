import type { LlmOptionsInput } from '../../../src/llm/config.js';
import { type LlmSession, type LlmSessionDeps, createLlmSession } from '../../../src/llm/session.js';
import { type ClassifyTangentsConfig, classifyTangents } from '../../../src/strategies/llm/classify-tangents.js';
import type { LlmStepResult } from '../../../src/strategies/llm/llm-step.js';
import { type SummarizeConfig, summarize } from '../../../src/strategies/llm/summarize.js';
import type { StrategyContext } from '../../../src/strategies/types.js';

/** Session options plus the steps' own (as a run's config would give them). */
export type StepTestOptions = Partial<LlmOptionsInput> & {
  keepLast?: number;
  keepFirst?: number;
  keepMessages?: number;
  keepResults?: number;
  focus?: string;
  maxChunks?: number;
  remove?: boolean;
  skeleton?: boolean;
};

/** One LLM session with both steps bound to it, the way `tcompact run` hands them a session. */
export interface LlmSteps {
  session: LlmSession;
  inputBudget: number;
  summarize(transcript: Parameters<typeof summarize.apply>[0], ctx: StrategyContext): Promise<LlmStepResult>;
  classifyTangents(transcript: Parameters<typeof classifyTangents.apply>[0], ctx: StrategyContext): Promise<LlmStepResult>;
  usage: LlmSession['usage'];
  close(): Promise<void>;
}

export async function createLlmSteps(options: StepTestOptions & { model: string }, deps: LlmSessionDeps = {}): Promise<LlmSteps> {
  const { keepLast, keepFirst, keepMessages, keepResults, focus, maxChunks, remove, skeleton, ...llm } = options;
  const session = await createLlmSession(llm, deps);
  // The default tail unless the test gives one (the unit tests' small hand-made sessions give LAST_TURN).
  const boundary = {
    ...(keepLast !== undefined ? { keepLast } : {}),
    ...(keepFirst !== undefined ? { keepFirst } : {}),
    ...(keepMessages !== undefined ? { keepMessages } : {}),
    ...(keepResults !== undefined ? { keepResults } : {}),
  };
  const summarizeConfig: SummarizeConfig = summarize.config.parse({
    ...boundary,
    ...(focus ? { focus } : {}),
    ...(maxChunks ? { maxChunks } : {}),
    ...(skeleton !== undefined ? { skeleton } : {}),
  });
  const tangentConfig: ClassifyTangentsConfig = classifyTangents.config.parse({ ...boundary, ...(remove ? { remove } : {}) });
  return {
    session,
    inputBudget: session.inputBudget,
    summarize: async (t, ctx) => (await summarize.apply(t, summarizeConfig, { ...ctx, llm: session })) as LlmStepResult,
    classifyTangents: async (t, ctx) => (await classifyTangents.apply(t, tangentConfig, { ...ctx, llm: session })) as LlmStepResult,
    usage: () => session.usage(),
    close: () => session.close(),
  };
}
