import * as z from 'zod';
import { onFirstUse } from '../on-first-use.js';

/**
 * Content parts in the OpenAI Chat Completions shape. Unknown fields on a part are preserved. Built on first use: valid
 * input never reaches them (model/quick-check.ts).
 */
export const contentSchemas = onFirstUse(() => {
  const text = z.looseObject({ type: z.literal('text'), text: z.string() });
  const image = z.looseObject({
    type: z.literal('image_url'),
    image_url: z.looseObject({ url: z.string(), detail: z.string().optional() }),
  });
  const file = z.looseObject({
    type: z.literal('file'),
    file: z.looseObject({
      file_data: z.string().optional(),
      file_id: z.string().optional(),
      filename: z.string().optional(),
    }),
  });
  const inputAudio = z.looseObject({
    type: z.literal('input_audio'),
    input_audio: z.looseObject({ data: z.string(), format: z.string() }),
  });
  const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
  return { text, image, file, inputAudio, refusal, part: z.discriminatedUnion('type', [text, image, file, inputAudio, refusal]) };
});
type Schemas = ReturnType<typeof contentSchemas>;

export type TextPart = z.infer<Schemas['text']>;
type ImagePart = z.infer<Schemas['image']>;
type FilePart = z.infer<Schemas['file']>;
type InputAudioPart = z.infer<Schemas['inputAudio']>;
export type ContentPart = z.infer<Schemas['part']>;
/** Parts that carry a binary payload rather than text. */
export type AttachmentPart = ImagePart | FilePart | InputAudioPart;

export function isAttachmentPart(part: ContentPart): part is AttachmentPart {
  return part.type === 'image_url' || part.type === 'file' || part.type === 'input_audio';
}

/** The text of a content value: a string as is, parts' text (and refusals) joined by a newline; attachments omitted. */
export function contentText(content: string | readonly ContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let out = '';
  for (const part of content) {
    const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
    if (text === undefined) continue;
    out = out === '' ? text : `${out}\n${text}`;
  }
  return out;
}
