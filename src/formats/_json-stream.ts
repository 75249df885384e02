import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TcompactError } from '../errors.js';
import { firstInvalidUtf8 } from '../io/line-reader.js';

/**
 * Decodes a file as strict UTF-8, chunk by chunk: stream-json's own decoder would replace bad bytes with U+FFFD, and
 * nothing may be replaced silently. A leading BOM is dropped.
 */
export async function* decodeUtf8Strict(file: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw new TcompactError('E_UTF8', `invalid UTF-8 near byte ${offset + firstInvalidUtf8(chunk)} of the file`);
    }
    offset += chunk.length;
    if (text !== '') yield text;
  }
  let tail: string;
  try {
    tail = decoder.decode();
  } catch {
    throw new TcompactError('E_UTF8', 'invalid UTF-8: the file ends inside a multi-byte sequence');
  }
  if (tail !== '') yield tail;
}

/** Reads a whole-file JSON document that holds one record (a `.traj`, one conversation), bounded by `maxBytes`. */
export async function readJsonDocument(file: string, maxBytes: number): Promise<unknown> {
  const { size } = await stat(file);
  if (size > maxBytes) throw new TcompactError('E_LINE_TOO_LONG', `the file is ${size} bytes, over --max-line-bytes ${maxBytes}`);
  let text = '';
  for await (const chunk of decodeUtf8Strict(file)) text += chunk;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TcompactError('E_JSON', (err as Error).message);
  }
}

/**
 * Streams the elements of a top-level JSON array one at a time (a 4 MB array of runs is never held whole). Throws a
 * TcompactError: E_UTF8, E_JSON (with the index of the element being read), or E_FORMAT when the top level is not an
 * array.
 */
export async function* streamJsonArray(file: string): AsyncGenerator<{ index: number; value: unknown }> {
  // Loaded by the first whole-file JSON input (see peekJson).
  const [{ default: Parser }, { default: StreamArray }] = await Promise.all([import('stream-json/Parser.js'), import('stream-json/streamers/StreamArray.js')]);
  const array = StreamArray.make();
  let failure: unknown;
  const done = pipeline(Readable.from(decodeUtf8Strict(file)), new Parser(), array).catch((err: unknown) => {
    failure = err;
  });
  let next = 0;
  try {
    for await (const { key, value } of array as AsyncIterable<{ key: number; value: unknown }>) {
      next = key + 1;
      yield { index: key, value };
    }
  } catch (err) {
    failure ??= err;
  }
  await done;
  if (failure !== undefined) throw asJsonError(failure, next);
}

function asJsonError(err: unknown, index: number): TcompactError {
  if (TcompactError.isInstance(err)) return err;
  const message = (err as Error).message ?? String(err);
  if (message.includes('should be an array')) return new TcompactError('E_FORMAT', 'the top level is not a JSON array');
  return new TcompactError('E_JSON', `in array element [${index}]: ${message}`);
}
