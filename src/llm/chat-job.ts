import type { Tokenizer } from '../tokens/tokenizer.js';
import type { ChatMessageParam } from './client.js';
import type { LlmJob } from './queue.js';

/** Framing tokens per chat message, and for the reply's start, as OpenAI documents them for its chat format. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

export function promptTokens(messages: readonly ChatMessageParam[], tokenizer: Tokenizer): number {
  let n = REPLY_PRIMING;
  for (const m of messages) n += PER_MESSAGE + tokenizer.count(m.content);
  return n;
}

interface JobParams {
  maxTokens: number;
  temperature?: number;
}

export function chatJob(label: string, system: string, user: string, params: JobParams, tokenizer: Tokenizer): LlmJob {
  const messages: ChatMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const request =
    params.temperature === undefined ? { messages, maxTokens: params.maxTokens } : { messages, maxTokens: params.maxTokens, temperature: params.temperature };
  return { label, request, promptTokens: promptTokens(messages, tokenizer) };
}
