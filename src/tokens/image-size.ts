/** An image's size in pixels, as its header states it. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The size a PNG, JPEG, GIF or WebP image's header states, or undefined when the bytes are none of these or the
 * header is cut short. Only the header is read (for JPEG, the markers up to the first frame header).
 */
export function imageSize(bytes: Uint8Array): ImageSize | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString('latin1', 12, 16) === 'IHDR') return sized(b.readUInt32BE(16), b.readUInt32BE(20));
  if (b.length >= 10 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a'))
    return sized(b.readUInt16LE(6), b.readUInt16LE(8));
  if (b.length >= 16 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return webpSize(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function sized(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** WebP's first chunk: `VP8 ` (lossy, 14-bit sizes in the key frame), `VP8L` (lossless, packed 14-bit sizes minus one) or `VP8X` (24-bit canvas sizes minus one). */
function webpSize(b: Buffer): ImageSize | undefined {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ' && b.length >= 30) return sized(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X' && b.length >= 30) return sized(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  return undefined;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): not DHT (C4), JPG (C8) or DAC (CC). */
const isFrameHeader = (marker: number): boolean => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** JPEG: walks the marker segments from SOI to the first frame header, whose fields are height then width. */
function jpegSize(b: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      at += 2; // markers without a length
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (isFrameHeader(marker)) return at + 9 <= b.length ? sized(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5)) : undefined;
    at += 2 + length;
  }
  return undefined;
}
