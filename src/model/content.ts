import * as z from 'zod';

/** Content parts in the OpenAI Chat Completions shape. Unknown fields on a part are preserved. */
export const TextPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string(), detail: z.string().optional() }),
});
const FilePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().optional(),
    file_id: z.string().optional(),
    filename: z.string().optional(),
  }),
});
const InputAudioPartSchema = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});
export const RefusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

export const ContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema, FilePartSchema, InputAudioPartSchema, RefusalPartSchema]);

export type TextPart = z.infer<typeof TextPartSchema>;
type ImagePart = z.infer<typeof ImagePartSchema>;
type FilePart = z.infer<typeof FilePartSchema>;
type InputAudioPart = z.infer<typeof InputAudioPartSchema>;
export type ContentPart = z.infer<typeof ContentPartSchema>;
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
