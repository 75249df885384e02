import type { ChatClient, ChatOutcome, ChatRequest } from '../../src/llm/client.js';
import type { Clock } from '../../src/llm/clock.js';

export interface ScriptStep {
  /** Simulated time the request takes (through the clock, so fake time). */
  durationMs: number;
  outcome: ChatOutcome;
}

/** A chat client without HTTP whose answers and durations come from a script: for simulations in fake time. */
export function scriptedClient(clock: Clock, script: (call: number, request: ChatRequest) => ScriptStep): ChatClient & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    model: 'scripted',
    calls,
    async complete(request) {
      const step = script(calls.length, request);
      calls.push(request);
      await clock.sleep(step.durationMs);
      return step.outcome;
    },
  };
}

export const okOutcome = (promptTokens: number, completionTokens: number, text = 'ok'): ChatOutcome => ({
  ok: true,
  value: { text, finishReason: 'stop', usage: { promptTokens, completionTokens }, rateLimit: {} },
});
