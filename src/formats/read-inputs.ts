import { stat } from 'node:fs/promises';
import { errorItem } from './_items.js';
import { loadAdapter } from './adapter-loaders.js';
import { countLines, detectFormat } from './detect.js';
import type { FormatName, InputItem, ReadOptions } from './types.js';
import { walkDataFiles } from './walk.js';

export interface ReadInputsOptions extends ReadOptions {
  /** Force a format instead of detecting it per file. */
  from?: FormatName;
}

/**
 * Reads every input path in order, yielding one item per input line or record. A directory is walked recursively
 * (`walkDataFiles`: only `.jsonl`, `.json` and `.traj` files, in a fixed order). Each file's format is detected from
 * its name and first record (`detectFormat`) unless `from` forces one. A path that cannot be read is an E_IO error
 * covering no lines; a file of unknown format is one E_FORMAT error covering all its lines.
 */
export async function* readInputs(paths: readonly string[], options: ReadInputsOptions): AsyncGenerator<InputItem> {
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (err) {
      yield errorItem({ file: path, line: 0, byteOffset: 0 }, 'E_IO', (err as Error).message, 0);
      continue;
    }
    if (!isDirectory) {
      yield* readFile(path, options);
      continue;
    }
    try {
      for await (const file of walkDataFiles(path)) yield* readFile(file, options);
    } catch (err) {
      yield errorItem({ file: path, line: 0, byteOffset: 0 }, 'E_IO', (err as Error).message, 0);
    }
  }
}

/** Reads one file with its detected (or forced) format. */
export async function* readFile(file: string, options: ReadInputsOptions): AsyncGenerator<InputItem> {
  const { from, ...read } = options;
  if (from !== undefined) {
    yield* withFormat(from, (await loadAdapter(from))(file, read));
    return;
  }
  let detection: Awaited<ReturnType<typeof detectFormat>>;
  try {
    detection = await detectFormat(file, read);
  } catch (err) {
    yield errorItem({ file, line: 0, byteOffset: 0 }, 'E_IO', (err as Error).message, 0);
    return;
  }
  if (!detection.ok) {
    const lines = detection.layout === 'jsonl' ? await countLines(file) : 1;
    yield errorItem({ file, line: 1, byteOffset: 0 }, detection.code, `${file}: ${detection.message}`, lines);
    return;
  }
  if (detection.format === undefined) {
    // No record at all: only blank lines to account for (the canonical reader reports them as skipped).
    if (detection.layout === 'jsonl') yield* (await loadAdapter('openai'))(file, read);
    return;
  }
  yield* withFormat(detection.format, (await loadAdapter(detection.format))(file, { ...read, layout: detection.layout }));
}

async function* withFormat(format: FormatName, items: AsyncIterable<InputItem>): AsyncGenerator<InputItem> {
  for await (const item of items) yield item.kind === 'transcript' ? { ...item, format } : item;
}
