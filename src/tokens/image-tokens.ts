import { type ImageSize, imageSize } from './image-size.js';

/**
 * Anthropic's vision rule (docs.anthropic.com, Vision, "Calculate image costs"): an image costs width × height / 750
 * tokens, after the API scales it down, keeping its aspect ratio, until its long edge is at most 1,568 pixels and it
 * is at most about 1,600 tokens (1.15 megapixels). Its payload size does not enter: a 45 kB screenshot of 864×559
 * costs 644 tokens, where its base64 over 4 would be 15,000.
 */
const PIXELS_PER_TOKEN = 750;
const MAX_LONG_EDGE = 1568;
/** The most one image costs: the rule's token ceiling, also charged for an image whose size cannot be read. */
export const MAX_IMAGE_TOKENS = 1600;

/** The tokens an image of this size costs, as Anthropic bills it (see the rule above). */
export function imageTokensOfSize({ width, height }: ImageSize): number {
  const scale = Math.min(1, MAX_LONG_EDGE / Math.max(width, height), Math.sqrt((MAX_IMAGE_TOKENS * PIXELS_PER_TOKEN) / (width * height)));
  const w = Math.max(1, Math.floor(width * scale));
  const h = Math.max(1, Math.floor(height * scale));
  return Math.min(MAX_IMAGE_TOKENS, Math.ceil((w * h) / PIXELS_PER_TOKEN));
}

/** Base64 characters decoded to find the header: 4,096 (3 kB) hold a PNG, GIF or WebP header and most JPEG ones. */
const HEAD_CHARS = 4096;

/**
 * The tokens an image costs, from its size read in the header of its inline payload (a `data:` URL or bare base64);
 * an image whose size cannot be read (a remote URL, an unknown type, a cut payload) costs {@link MAX_IMAGE_TOKENS}.
 */
export function imageTokens(urlOrBase64: string): number {
  const size = sizeOfPayload(urlOrBase64);
  return size ? imageTokensOfSize(size) : MAX_IMAGE_TOKENS;
}

function sizeOfPayload(urlOrBase64: string): ImageSize | undefined {
  let payload = urlOrBase64;
  if (payload.startsWith('data:')) {
    const comma = payload.indexOf(',');
    if (comma < 0 || !payload.slice(0, comma).includes(';base64')) return undefined;
    payload = payload.slice(comma + 1);
  } else if (/^[a-z]+:/i.test(payload)) return undefined;
  const head = imageSize(Buffer.from(payload.slice(0, HEAD_CHARS), 'base64'));
  // A JPEG's frame header can follow a large EXIF block: then the whole payload is read.
  return head ?? (payload.length > HEAD_CHARS ? imageSize(Buffer.from(payload, 'base64')) : undefined);
}
