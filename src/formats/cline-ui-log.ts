import type { Message } from '../model/message.js';
import { type UiRequest, isApiRequest, uiRequests, usageOfCline } from './_cline-ui.js';
import { isRooUiLog, rooRequests, rooUsage } from './_roo-ui.js';
import { baseName, finishTranscript, isObject } from './_items.js';
import { acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * A Cline task's UI log read without its history (`tasks/<task id>/ui_messages.json`, cline
 * apps/vscode/src/shared/ExtensionMessage.ts `ClineMessage`): a usage-only session. Each `api_req_started` entry
 * becomes one reply with no content, carrying the request's usage (its text, `ClineApiReqInfo`: tokensIn, tokensOut,
 * cacheWrites, cacheReads, cost; see `usageOfCline`) and the model its `modelInfo` names; every other entry (the chat
 * as the UI showed it, most assistant text stored `partial`) is counted as skipped, `record:<type>/<say or ask>`. The
 * transcript's metadata.usageOnly says the replies hold no messages: the replay has nothing to replay.
 */
export async function* readClineUiLog(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const entries: unknown[] = [];
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'json' }), ({ value, index }) => {
    entries[index ?? entries.length] = value;
    if (!isObject(value) || (value.type !== 'say' && value.type !== 'ask')) return { kind: 'error', message: 'expected a UI message with type "say" or "ask"' };
    if (isApiRequest(value) && uiRequests([value]).length === 1) return { kind: 'kept' };
    const what = typeof value.say === 'string' ? value.say : typeof value.ask === 'string' ? value.ask : '';
    return { kind: 'skipped', reason: `record:${value.type}${what === '' ? '' : `/${what}`}` };
  });
  if (!first) return;
  const requests = uiRequests(entries);
  const models = [...new Set(requests.flatMap((r) => (r.model === undefined ? [] : [r.model])))];
  // Roo Code's `tokensIn` counts the cache as Roo's version did (see rooUsage), not as Cline's providers do.
  const roo = isRooUiLog(entries) ? rooRequests(entries) : undefined;
  const messages = roo ? roo.map((r, i) => ({ ...replyOf(requests[i]), usage: rooUsage(r) }) as unknown as Message) : requests.map(replyOf);
  yield finishTranscript(
    {
      id: taskIdOfUiLog(file),
      messages,
      metadata: { source: { format: 'cline', file }, usageOnly: true, ...(models.length > 0 ? { models } : {}) },
    },
    first,
    units,
  );
}

/** One request as a reply with no content: its usage, model, time and Cline's own cost. */
function replyOf(r: UiRequest): Message {
  const reply: Record<string, unknown> = {
    role: 'assistant',
    content: '',
    usage: usageOfCline({ input: r.tokensIn, output: r.tokensOut, writes: r.cacheWrites, reads: r.cacheReads }, r.provider),
    usage_only: true,
  };
  if (r.ts > 0) reply.ts = r.ts;
  if (r.model !== undefined) reply.model = r.model;
  if (r.cost !== undefined) reply.cost = r.cost;
  return reply as unknown as Message;
}

/** `tasks/<id>/ui_messages.json` -> `<id>`; any other name -> the file's base name. */
function taskIdOfUiLog(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.length > 1 ? parts[parts.length - 2] : baseName(file);
}
