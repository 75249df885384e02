import type { AttachmentPart } from '../model/content.js';

interface AttachmentInfo {
  mime: string;
  /** Size of the payload: decoded bytes for base64, UTF-8 bytes otherwise. */
  bytes: number;
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  json: 'application/json',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
};
const UNKNOWN_MIME = 'application/octet-stream';

function mimeFromFilename(name: string | undefined): string {
  const dot = name?.lastIndexOf('.') ?? -1;
  if (name === undefined || dot < 0) return UNKNOWN_MIME;
  return MIME_BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? UNKNOWN_MIME;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `data:[<mime>][;param]*[;base64],<data>`, without copying the payload; `mime` is undefined when the URL has none. */
function parseDataUrl(url: string): { mime: string | undefined; bytes: number } | undefined {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) return undefined;
  const [mime, ...params] = url.slice(5, comma).split(';');
  const payload = url.slice(comma + 1);
  const bytes = params.includes('base64') ? Buffer.byteLength(payload, 'base64') : Buffer.byteLength(payload, 'utf8');
  return { mime: mime === '' ? undefined : mime, bytes };
}

/**
 * What an inline attachment is and how big. Undefined for a part that only points elsewhere (an http image URL, a
 * `file_id`): there is no payload to strip. A data URL without a media type is `text/plain` (RFC 2397) for images and
 * takes the filename's type for files.
 */
export function attachmentInfo(part: AttachmentPart): AttachmentInfo | undefined {
  if (part.type === 'image_url') {
    const url = parseDataUrl(part.image_url.url);
    return url && { mime: url.mime ?? 'text/plain', bytes: url.bytes };
  }
  if (part.type === 'input_audio') return { mime: `audio/${part.input_audio.format}`, bytes: Buffer.byteLength(part.input_audio.data, 'base64') };
  const data = part.file.file_data;
  if (data === undefined || data === '') return undefined;
  const url = parseDataUrl(data);
  if (url) return { mime: url.mime ?? mimeFromFilename(part.file.filename), bytes: url.bytes };
  const bytes = data.length % 4 === 0 && BASE64.test(data) ? Buffer.byteLength(data, 'base64') : Buffer.byteLength(data, 'utf8');
  return { mime: mimeFromFilename(part.file.filename), bytes };
}
