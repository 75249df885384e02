import { isAscii, isUtf8, transcode } from 'node:buffer';
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ErrorInfo } from '../errors.js';

export interface RawLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  byteOffset: number;
  /** Length in bytes, without the line terminator. */
  byteLength: number;
  /** The line's bytes without `\n` (a trailing `\r` is kept; see decodeLine). Null when the line was too long. */
  bytes: Buffer | null;
  /** False for a last line that has no `\n` after it. */
  terminated: boolean;
}

interface LineReaderOptions {
  /** Lines longer than this are reported with `bytes: null` and never buffered whole. */
  maxLineBytes: number;
  /** Read from this byte offset (a shard's start); must be the start of a line. */
  start?: number;
  /** Stop before this byte offset (exclusive); must be the start of a line or the end of the file. */
  end?: number;
  /** Line number of the line at `start`. */
  firstLine?: number;
  highWaterMark?: number;
  /** Yield positions only: `bytes` is always null and nothing is buffered (accounting passes). @default false */
  positionsOnly?: boolean;
  /** Updated with every byte read, in order: the hash of the range comes from the pass that reads it anyway. */
  hash?: Hash;
  /**
   * A line that lies within one read chunk is yielded as a view of that chunk, not a copy: for a caller that is done
   * with each line's bytes soon, or keeps few of them (a view keeps its whole chunk alive). @default false
   */
  views?: boolean;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a file into lines at the byte level, incrementally, tracking line numbers and byte offsets. A line longer than
 * `maxLineBytes` is skipped over as it streams past, so memory stays bounded by the limit, not by the line.
 */
export async function* readLines(path: string, options: LineReaderOptions): AsyncGenerator<RawLine> {
  const { maxLineBytes } = options;
  const start = options.start ?? 0;
  const stream = createReadStream(path, {
    start,
    end: options.end === undefined ? undefined : options.end - 1,
    highWaterMark: options.highWaterMark ?? 1024 * 1024,
  });
  let line = options.firstLine ?? 1;
  let lineStart = start;
  let parts: Buffer[] = [];
  let partsLength = 0;
  const positionsOnly = options.positionsOnly === true;
  const views = options.views === true;
  let tooLong = positionsOnly;
  let position = start;
  if (options.end !== undefined && options.end <= start) return;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    options.hash?.update(chunk);
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      const stop = nl === -1 ? chunk.length : nl;
      const pieceLength = stop - from;
      if (!tooLong) {
        if (partsLength + pieceLength > maxLineBytes) {
          tooLong = true;
          parts = [];
        } else if (pieceLength > 0) {
          parts.push(chunk.subarray(from, stop));
        }
      }
      partsLength += pieceLength;
      if (nl === -1) break;
      const bytes = tooLong ? null : parts.length === 1 ? (views ? parts[0] : Buffer.from(parts[0])) : Buffer.concat(parts, partsLength);
      yield { line, byteOffset: lineStart, byteLength: partsLength, bytes, terminated: true };
      line++;
      lineStart = position + nl + 1;
      parts = [];
      partsLength = 0;
      tooLong = positionsOnly;
      from = nl + 1;
    }
    position += chunk.length;
  }
  if (partsLength > 0) {
    const bytes = tooLong ? null : Buffer.concat(parts, partsLength);
    yield { line, byteOffset: lineStart, byteLength: partsLength, bytes, terminated: false };
  }
}

/**
 * `bytes` as text when they are valid UTF-8 (strictly: no overlong forms, no surrogates), else undefined. Validated by
 * simdutf, then converted to UTF-16 by ICU and copied into a V8 string: a quarter less CPU than V8's own UTF-8 decoder
 * (what TextDecoder and toString use) on text with non-ASCII characters, which V8 keeps as UTF-16 anyway. A line that
 * is all ASCII becomes a one-byte string, as the decoder would make it.
 */
function decodeUtf8(bytes: Buffer): string | undefined {
  if (isAscii(bytes)) return bytes.toString('latin1');
  if (!isUtf8(bytes)) return undefined;
  return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
}

/** `bytes`: the UTF-8 bytes `text` was decoded from (the line without a BOM or `\r`). */
type DecodedLine = { kind: 'text'; text: string; bytes: Buffer } | { kind: 'blank' } | { kind: 'error'; error: ErrorInfo };

/**
 * Decodes a line strictly: invalid UTF-8 is an error (never replaced by U+FFFD), a BOM on the first line and a
 * trailing `\r` are dropped, whitespace-only lines are blank.
 */
export function decodeLine(raw: RawLine, maxLineBytes: number): DecodedLine {
  if (raw.bytes === null) {
    return {
      kind: 'error',
      error: { code: 'E_LINE_TOO_LONG', message: `line is ${raw.byteLength} bytes, over --max-line-bytes ${maxLineBytes}` },
    };
  }
  let bytes = raw.bytes;
  if (raw.byteOffset === 0 && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  const text = decodeUtf8(bytes);
  if (text === undefined) return { kind: 'error', error: { code: 'E_UTF8', message: `invalid UTF-8 at byte ${firstInvalidUtf8(bytes)} of the line` } };
  if (text.trim() === '') return { kind: 'blank' };
  return { kind: 'text', text, bytes };
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (for the error message). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return i;
}
