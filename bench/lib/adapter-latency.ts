/**
 * Per-call overhead of the runtime adapters as an agent loop meets it: before each assistant reply, the runtime's
 * whole history so far goes through the adapter (conversion to canonical messages, `ContextManager.check()`,
 * conversion back, breakpoints for Anthropic). The histories are built once in each runtime's shape, untimed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
import { tcompactPrepareStep } from '../../src/adapters/ai-sdk/prepare-step.js';
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.js';
import { toAnthropic } from '../../src/adapters/anthropic/anthropic-messages.js';
import { tcompactAnthropic } from '../../src/adapters/anthropic/edit-params.js';
import { toLangChain } from '../../src/adapters/langchain/langchain-messages.js';
import { tcompactMiddleware } from '../../src/adapters/langchain/middleware.js';
import type { Message } from '../../src/model/message.js';
import { timestampMs } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { replayed } from '../../src/replay/replay.js';

export const ADAPTERS = ['tcompact/ai-sdk prepareStep', 'tcompact/langchain middleware', 'tcompact/anthropic editor'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** The gap between calls where the session recorded no usable time. */
const DEFAULT_GAP_MS = 10_000;

/** The runtime's history before each call, as the prefix length of one list (each message converted once). */
function histories<R>(messages: readonly Message[], convert: (m: Message) => R[]): { all: R[]; before: number[] } {
  const all: R[] = [];
  const before: number[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') before.push(all.length);
    all.push(...convert(m));
  }
  return { all, before };
}

/** Each call's time: the session's own clock where recorded, never backwards. */
function callClock(messages: readonly Message[]): () => number {
  const times: number[] = [];
  let at = 0;
  for (const m of messages) if (m.role === 'assistant') times.push((at = Math.max(at + 1, timestampMs(m) ?? at + DEFAULT_GAP_MS)));
  let call = 0;
  return () => times[call++];
}

/** One replay of the session through an adapter with a fresh manager; each call's time in ms. */
export async function replayAdapter(name: AdapterName, t: Transcript, window: number): Promise<number[]> {
  const messages = t.messages.filter(replayed);
  const now = callClock(messages);
  const ms: number[] = [];
  const time = async (run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    ms.push(performance.now() - t0);
  };
  if (name === 'tcompact/ai-sdk prepareStep') {
    const { all, before } = histories<ModelMessage>(messages, (m) => toModelMessages([m]));
    const prepareStep = tcompactPrepareStep({ window }, { now, cacheControl: true });
    for (const n of before) await time(() => prepareStep({ messages: all.slice(0, n), model: 'anthropic/claude-sonnet-4-6' }));
  } else if (name === 'tcompact/langchain middleware') {
    const { all, before } = histories<BaseMessage>(messages, (m) => toLangChain([m]));
    const middleware = tcompactMiddleware({ window }, { now });
    type Hook = (request: { messages: BaseMessage[] }, handler: (request: { messages: BaseMessage[] }) => Promise<unknown>) => Promise<unknown>;
    const wrap = middleware.wrapModelCall as unknown as Hook;
    for (const n of before) await time(() => wrap({ messages: all.slice(0, n) }, async (request) => request));
  } else {
    const { all, before } = histories<Anthropic.MessageParam>(messages, (m) => toAnthropic([m]));
    const edit = tcompactAnthropic({ window }, { now });
    for (const n of before) await time(() => edit({ messages: all.slice(0, n) }));
  }
  return ms;
}
