import { type ContentPart, contentText, isAttachmentPart } from '../../model/content.js';
import { type Message, isAssistant, isKnownRole, isTool } from '../../model/message.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';

/** Shares of the span's tool results dropped, oldest first, when the summarizer's input is too long. */
export const DROP_LEVELS = [0, 0.1, 0.2, 0.5, 1] as const;

export interface RenderOptions {
  /** Index of `messages[0]` in the transcript, for the `#n` labels. */
  offset: number;
  /** Share of the tool results (oldest first) replaced by a one-line placeholder. @default 0 */
  dropToolResults?: number;
  /** When set, a message whose text is longer than this many characters keeps only its head and tail. */
  maxMessageChars?: number;
  tokenizer: Tokenizer;
}

function attachmentsNote(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const n = (content as ContentPart[]).filter(isAttachmentPart).length;
  return n === 0 ? '' : `\n[${n} attachment${n === 1 ? '' : 's'} not shown]`;
}

function clip(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters not shown ...]\n${text.slice(text.length - half)}`;
}

/**
 * Renders messages as the plain text the summarizer reads: one `[#n role]` header per message, tool calls as
 * `-> name(arguments)`, tool results under `[#n tool name]`. Reasoning text is left out (the summary is built from
 * what was said and done). Dropped tool results keep a line saying how many tokens were left out.
 */
export function renderSpan(messages: readonly Message[], options: RenderOptions): string {
  const toolIndices: number[] = [];
  for (let i = 0; i < messages.length; i++) if (isTool(messages[i])) toolIndices.push(i);
  const dropCount = Math.ceil(toolIndices.length * (options.dropToolResults ?? 0));
  const dropped = new Set(toolIndices.slice(0, dropCount));
  const toolNames = new Map<string, string>();
  const blocks: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const n = options.offset + i;
    if (!isKnownRole(m.role)) {
      blocks.push(`[#${n} ${m.role}]\n${clip(JSON.stringify(m), options.maxMessageChars)}`);
      continue;
    }
    if (isTool(m)) {
      const name = toolNames.get(m.tool_call_id) ?? m.name ?? 'tool';
      const status = m.is_error ? ' (error)' : '';
      const text = contentText(m.content);
      if (dropped.has(i)) {
        blocks.push(`[#${n} tool ${name}${status}] (output left out: ${options.tokenizer.count(text)} tokens)`);
      } else {
        blocks.push(`[#${n} tool ${name}${status}]\n${clip(text, options.maxMessageChars)}${attachmentsNote(m.content)}`);
      }
      continue;
    }
    const content = (m as { content?: unknown }).content;
    let text = clip(contentText(content as string | ContentPart[] | null | undefined), options.maxMessageChars);
    if (isAssistant(m)) {
      if (typeof m.refusal === 'string' && m.refusal !== '') text += `${text ? '\n' : ''}[refusal] ${m.refusal}`;
      for (const call of m.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name);
        text += `${text ? '\n' : ''}-> ${call.function.name}(${clip(call.function.arguments, options.maxMessageChars)})`;
      }
    }
    blocks.push(`[#${n} ${m.role}]\n${text}${attachmentsNote(content)}`);
  }
  return blocks.join('\n\n');
}
