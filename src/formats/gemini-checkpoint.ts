import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../model/message.js';
import { collapse, contentParts, functionResponseOf, partList, thoughtText } from './_gemini-parts.js';
import { baseName, errorItem, finishTranscript, isObject } from './_items.js';
import { readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Gemini CLI checkpoints (`~/.gemini/tmp/<project hash>/checkpoints/<time>-<file>-<tool>.json`), written before a
 * file-changing tool runs (gemini-cli packages/core/src/utils/checkpointUtils.ts, `ToolCallData`): `{history,
 * clientHistory, toolCall: {name, args}, commitHash, messageId}`. One transcript per file (one unit), id the file
 * name without `.json`.
 * - `clientHistory` is what the model saw (`Content[]`: `{role: user|model, parts}`) and becomes the messages: `text`
 *   parts -> content (`thought` parts -> `reasoning_content`), `functionCall` parts -> tool calls, `functionResponse`
 *   parts -> `tool` messages (`response.output`, or `response.error` with `is_error`).
 * - `functionCall` parts carry no id while `functionResponse` parts do: the k-th response of a user turn answers the
 *   k-th call of the model turn before it (by name when the names differ in order) and gives the call its id; a call
 *   nobody answered gets `<file base>#call-<turn>-<k>`. The last call, the one the checkpoint was taken for, has not
 *   run: the pairing repair gives it `[no result recorded]` and reports it (`missingResultFilled`).
 * - `history` is the CLI's display copy (derived): only its length is kept (metadata.uiHistoryItems); `toolCall`,
 *   `commitHash` and `messageId` go to metadata.
 */
export async function* readGeminiCheckpoint(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const entry of readRecords(file, { ...options, layout: 'json' })) {
    if (entry.kind === 'item') {
      yield entry.item;
      continue;
    }
    const { value, at } = entry.record;
    if (!isObject(value) || !Array.isArray(value.clientHistory)) {
      yield errorItem(at, 'E_SCHEMA', 'clientHistory: a Gemini CLI checkpoint needs a clientHistory array');
      continue;
    }
    const built = historyMessages(value.clientHistory, baseName(file));
    if (!built.ok) {
      yield errorItem(at, 'E_SCHEMA', built.message);
      continue;
    }
    const metadata: Record<string, unknown> = { source: { format: 'gemini-checkpoint', file } };
    if (isObject(value.toolCall)) metadata.toolCall = value.toolCall;
    if (typeof value.commitHash === 'string') metadata.commitHash = value.commitHash;
    if (typeof value.messageId === 'string') metadata.messageId = value.messageId;
    if (Array.isArray(value.history)) metadata.uiHistoryItems = value.history.length;
    yield finishTranscript({ id: baseName(file), messages: built.messages, metadata }, at, 1);
  }
}

type Built = { ok: true; messages: Message[] } | { ok: false; message: string };

function historyMessages(history: unknown[], base: string): Built {
  const messages: Message[] = [];
  /** Calls of the latest model turn not answered yet, in order. */
  let pending: ToolCall[] = [];
  /** Calls whose id was derived from the file (the part had none): a response's id replaces it. */
  const derived = new Set<ToolCall>();
  for (const [turn, content] of history.entries()) {
    if (!isObject(content) || !Array.isArray(content.parts)) return { ok: false, message: `clientHistory[${turn}].parts: expected an array` };
    const parts = partList(content.parts);
    if (content.role === 'model') {
      const message: AssistantMessage = { role: 'assistant', content: null };
      const text = contentParts(parts);
      if (text.length > 0) message.content = collapse(text) as AssistantMessage['content'];
      const reasoning = thoughtText(parts);
      if (reasoning !== undefined) message.reasoning_content = reasoning;
      const calls: ToolCall[] = [];
      for (const part of parts) {
        if (!isObject(part.functionCall)) continue;
        const fc = part.functionCall;
        const own = typeof fc.id === 'string' && fc.id !== '';
        const call: ToolCall = {
          id: own ? (fc.id as string) : `${base}#call-${turn}-${calls.length}`,
          type: 'function',
          function: { name: typeof fc.name === 'string' ? fc.name : 'unknown', arguments: JSON.stringify(fc.args ?? {}) },
        };
        if (!own) derived.add(call);
        calls.push(call);
      }
      if (calls.length > 0) message.tool_calls = calls;
      messages.push(message);
      pending = [...calls];
      continue;
    }
    if (content.role !== 'user') return { ok: false, message: `clientHistory[${turn}].role: expected "user" or "model"` };
    const results: ToolMessage[] = [];
    for (const part of parts) {
      const fr = functionResponseOf(part);
      if (!fr) continue;
      const call = takeCall(pending, fr.id, fr.name);
      if (call && derived.has(call) && fr.id !== undefined) call.id = fr.id;
      const id = call ? call.id : (fr.id ?? `${base}#response-${turn}-${results.length}`);
      const result: ToolMessage = { role: 'tool', tool_call_id: id, content: fr.text };
      if (fr.name !== undefined) result.name = fr.name;
      if (fr.isError) result.is_error = true;
      results.push(result);
    }
    messages.push(...results);
    const rest = contentParts(parts);
    if (rest.length > 0 || results.length === 0) messages.push({ role: 'user', content: collapse(rest) });
  }
  return { ok: true, messages };
}

/** The pending call a response answers: the one with its id, else the first with its name, else the first. */
function takeCall(pending: ToolCall[], id: string | undefined, name: string | undefined): ToolCall | undefined {
  let i = id === undefined ? -1 : pending.findIndex((c) => c.id === id);
  if (i < 0) i = pending.findIndex((c) => c.function.name === name);
  if (i < 0) i = pending.length > 0 ? 0 : -1;
  return i < 0 ? undefined : pending.splice(i, 1)[0];
}
