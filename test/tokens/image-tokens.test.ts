import { describe, expect, it } from 'vitest';
import { imageSize } from '../../src/tokens/image-size.js';
import { MAX_IMAGE_TOKENS, imageTokens, imageTokensOfSize } from '../../src/tokens/image-tokens.js';

const bytes = (...parts: (number[] | string)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const u32be = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, n >> 8];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, n >> 16];

const png = (w: number, h: number) => bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR', u32be(w), u32be(h), [8, 6, 0, 0, 0]);
const gif = (w: number, h: number) => bytes('GIF89a', u16le(w), u16le(h), [0, 0, 0]);
const riff = (chunk: string, body: number[]) => bytes('RIFF', [0, 0, 0, 0], 'WEBP', chunk, [0, 0, 0, 0], body);
/** A JPEG with an APP1 (EXIF) segment of `exif` bytes, a DHT segment, then its frame header. */
const jpeg = (w: number, h: number, exif = 16) =>
  bytes(
    [0xff, 0xd8, 0xff, 0xe1, (exif + 2) >> 8, (exif + 2) & 0xff],
    Array(exif).fill(0) as number[],
    [0xff, 0xc4, 0, 3, 0],
    [0xff, 0xc2, 0, 11, 8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0],
  );

describe('image sizes from their headers', () => {
  it('reads PNG, GIF, WebP (lossy, lossless, extended) and JPEG headers', () => {
    expect(imageSize(png(864, 559))).toEqual({ width: 864, height: 559 });
    expect(imageSize(gif(320, 200))).toEqual({ width: 320, height: 200 });
    // VP8 key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit width and height.
    expect(imageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(1024), ...u16le(768)]))).toEqual({ width: 1024, height: 768 });
    // VP8L: the signature 0x2f, then width-1 and height-1 in 14 bits each.
    const packed = (640 - 1) | ((480 - 1) << 14);
    expect(imageSize(riff('VP8L', [0x2f, packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff, packed >>> 24]))).toEqual({ width: 640, height: 480 });
    expect(imageSize(riff('VP8X', [0, 0, 0, 0, ...u24le(3000 - 1), ...u24le(2000 - 1)]))).toEqual({ width: 3000, height: 2000 });
    expect(imageSize(jpeg(4032, 3024))).toEqual({ width: 4032, height: 3024 });
  });

  it('reads no size from other bytes or a cut header', () => {
    expect(imageSize(Buffer.from('%PDF-1.7\n'))).toBeUndefined();
    expect(imageSize(png(10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageSize(jpeg(10, 10).subarray(0, 30))).toBeUndefined();
  });
});

describe('image tokens as Anthropic bills them', () => {
  it('charges width x height / 750 below the limits, and scales larger images down first', () => {
    // The two screenshots of 864x559 a real session sent, which the API charged about 644 tokens each.
    expect(imageTokensOfSize({ width: 864, height: 559 })).toBe(644);
    expect(imageTokensOfSize({ width: 200, height: 200 })).toBe(54);
    // 4032x3024: scaled to 1.2 megapixels (1264x948), under the 1,568-pixel edge.
    expect(imageTokensOfSize({ width: 4032, height: 3024 })).toBe(Math.ceil((1264 * 948) / 750));
    // 4000x500: the long edge is cut to 1,568 first (1568x196).
    expect(imageTokensOfSize({ width: 4000, height: 500 })).toBe(Math.ceil((1568 * 196) / 750));
  });

  it('reads the size from a data URL or bare base64, with the most one image costs when it cannot', () => {
    const payload = Buffer.concat([png(864, 559), Buffer.alloc(40_000, 7)]).toString('base64');
    expect(imageTokens(`data:image/png;base64,${payload}`)).toBe(644);
    expect(imageTokens(payload)).toBe(644);
    // A JPEG whose frame header sits after 10 kB of EXIF, beyond the first decoded chunk.
    expect(imageTokens(`data:image/jpeg;base64,${jpeg(864, 559, 10_000).toString('base64')}`)).toBe(644);
    expect(imageTokens('https://example.invalid/cat.png')).toBe(MAX_IMAGE_TOKENS);
    expect(imageTokens(`data:image/png;base64,${Buffer.from('not an image').toString('base64')}`)).toBe(MAX_IMAGE_TOKENS);
  });
});
