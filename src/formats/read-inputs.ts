import { readOpenAIArchive } from './openai-jsonl.js';
import type { FormatName, InputItem, ReadOptions } from './types.js';

export interface ReadInputsOptions extends ReadOptions {
  /** Force a format instead of detecting it per file. */
  from?: FormatName;
}

/** Reads every input path (files or directories) in order, yielding one item per input line or record. */
export async function* readInputs(paths: readonly string[], options: ReadInputsOptions): AsyncGenerator<InputItem> {
  for (const path of paths) yield* readOpenAIArchive(path, options);
}
