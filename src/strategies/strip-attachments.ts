import * as z from 'zod';
import { type ContentPart, type TextPart, isAttachmentPart } from '../model/content.js';
import type { Message } from '../model/message.js';
import { lastUserRequestIndex } from '../model/validity.js';
import type { PendingRef } from '../refs/ref-store.js';
import { BoundaryFields } from './_config.js';
import { attachmentInfo } from './_attachment-info.js';
import { fewerTokens, withMessages } from './_edit.js';
import { ATTACHMENT_PREFIX, refSuffix } from './_placeholders.js';
import { protectedRange } from './boundaries.js';
import type { Strategy, StrategyContext } from './types.js';

const StripAttachmentsConfigSchema = z.strictObject({ ...BoundaryFields });

interface Stripped {
  parts: ContentPart[];
  /** The replaced parts' refs, kept in the side store when the change is taken. */
  originals: PendingRef[];
  /** How many parts were replaced. */
  count: number;
  bytes: number;
}

function stripParts(m: Message, parts: readonly ContentPart[], ctx: StrategyContext): Stripped | undefined {
  let out: ContentPart[] | undefined;
  const originals: Stripped['originals'] = [];
  let bytes = 0;
  let count = 0;
  parts.forEach((part, i) => {
    const info = isAttachmentPart(part) ? attachmentInfo(part) : undefined;
    if (!info) return;
    const original = ctx.refs?.partRef(m, i);
    const text = `${ATTACHMENT_PREFIX}${info.mime}, ${info.bytes} bytes]${refSuffix(original?.ref)}`;
    out ??= parts.slice();
    out[i] = { type: 'text', text } satisfies TextPart;
    if (original) originals.push(original);
    count++;
    bytes += info.bytes;
  });
  return out && { parts: out, originals, count, bytes };
}

/**
 * Replaces inline image, file and audio parts outside the kept turns (and never in the last user request) with a text
 * part `[attachment: {mime}, {bytes} bytes] (ref: ...)`; the part itself goes to the side store.
 */
export const stripAttachments: Strategy<typeof StripAttachmentsConfigSchema> = {
  name: 'strip-attachments',
  summary: 'replace inline images, files and audio with "[attachment: {mime}, {bytes} bytes]" and a reference',
  config: StripAttachmentsConfigSchema,
  apply(transcript, config, ctx) {
    const messages = transcript.messages;
    const { headEnd, tailStart } = protectedRange(messages, config);
    const lastRequest = lastUserRequestIndex(messages);
    let out: Message[] | undefined;
    let messagesChanged = 0;
    let attachments = 0;
    let attachmentBytes = 0;
    for (let i = headEnd; i < tailStart; i++) {
      const m = messages[i];
      if (i === lastRequest || (m.role !== 'user' && m.role !== 'tool') || !Array.isArray(m.content)) continue;
      const stripped = stripParts(m, m.content as ContentPart[], ctx);
      if (!stripped) continue;
      const next = { ...m, content: stripped.parts } as Message;
      if (!fewerTokens(m, next, ctx.tokenizer)) continue;
      for (const original of stripped.originals) original.keep();
      out ??= messages.slice();
      out[i] = next;
      messagesChanged++;
      attachments += stripped.count;
      attachmentBytes += stripped.bytes;
    }
    return {
      transcript: out ? withMessages(transcript, out) : transcript,
      messagesChanged,
      messagesRemoved: 0,
      details: { attachmentsStripped: attachments, attachmentBytes },
    };
  },
};
