import { contentText } from '../model/content.js';
import { parseArguments } from '../io/canonical-json.js';
import { type Message, isAssistant, messageContent } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { phraseIndex } from './key-phrases.js';
import { collapseWhitespace } from './normalize.js';

/**
 * What a model receiving the transcript can read, as one whitespace-collapsed text: every message's text content
 * (summaries and checkpoints are messages too), the reasoning still present, refusals, and each tool call's name with
 * the string values of its arguments (decoded from JSON, so a path or command reads as it was typed). Metadata, refs
 * and attachments' payloads are not part of it: a model never sees them.
 */
export interface ModelView {
  readonly text: string;
  /** Content words and consecutive word pairs of `text` (see key-phrases.ts), built on first use. */
  phrases(): ReadonlySet<string>;
}

function argumentStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) argumentStrings(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) argumentStrings(v, out);
}

/** The texts a model reads in one message, in order. */
function messageTexts(message: Message): string[] {
  const out: string[] = [];
  const assistant = isAssistant(message) ? message : undefined;
  if (assistant?.reasoning_content !== undefined) out.push(assistant.reasoning_content);
  const text = contentText(messageContent(message));
  if (text) out.push(text);
  if (typeof assistant?.refusal === 'string') out.push(assistant.refusal);
  if (assistant?.tool_calls) {
    for (const call of assistant.tool_calls) {
      out.push(call.function.name);
      const args = parseArguments(call.function.arguments);
      if (args) argumentStrings(args, out);
      else out.push(call.function.arguments);
    }
  }
  return out;
}

/**
 * A message's texts joined and whitespace-collapsed, once per message object: a replay scores a view of the whole
 * prompt at every edit of every policy, and the prompts share their messages.
 */
const collapsedTexts = new WeakMap<Message, string>();

function collapsedText(message: Message): string {
  let text = collapsedTexts.get(message);
  if (text === undefined) collapsedTexts.set(message, (text = collapseWhitespace(messageTexts(message).join('\n'))));
  return text;
}

export function viewOfMessages(messages: readonly Message[]): ModelView {
  // Collapsing each message apart and joining the non-empty ones with one space is collapsing the whole.
  const parts: string[] = [];
  for (const message of messages) {
    const text = collapsedText(message);
    if (text !== '') parts.push(text);
  }
  const text = parts.join(' ');
  let phrases: Set<string> | undefined;
  return {
    text,
    phrases: () => (phrases ??= phraseIndex(text)),
  };
}

export function modelView(transcript: Transcript): ModelView {
  return viewOfMessages(transcript.messages);
}
