import { stat } from 'node:fs/promises';
import { TcompactError } from '../../errors.js';
import { detectFormat } from '../../formats/detect.js';
import type { FormatName } from '../../formats/types.js';
import { walkDataFiles } from '../../formats/walk.js';

/**
 * How the run reads one input file. A canonical archive (`openai` JSONL) is split into byte ranges that workers read
 * themselves; any other format (Claude Code sessions, tau-bench arrays, .traj files...) goes through its adapter on the
 * main thread and reaches the workers as batches of converted transcripts.
 */
export interface InputSource {
  /** The file, as given or as found by walking a directory that was given. */
  file: string;
  kind: 'archive' | 'adapter';
  /** The detected (or forced) format; undefined when detection failed (the adapter path reports it as an error). */
  format?: FormatName;
}

/**
 * Expands the inputs into files in the order `readInputs` reads them (directories walked with `walkDataFiles`) and
 * picks each file's path through the pipeline from its detected format. A path that does not exist is an E_IO error
 * before anything starts.
 */
export async function resolveInputSources(inputs: readonly string[], maxLineBytes: number, from?: FormatName): Promise<InputSource[]> {
  const sources: InputSource[] = [];
  for (const input of inputs) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(input)).isDirectory();
    } catch (err) {
      throw new TcompactError('E_IO', `cannot read input "${input}": ${(err as Error).message}`);
    }
    if (!isDirectory) sources.push(await sourceOf(input, maxLineBytes, from));
    else for await (const file of walkDataFiles(input)) sources.push(await sourceOf(file, maxLineBytes, from));
  }
  return sources;
}

async function sourceOf(file: string, maxLineBytes: number, from?: FormatName): Promise<InputSource> {
  if (from !== undefined) return { file, kind: from === 'openai' ? 'archive' : 'adapter', format: from };
  const detection = await detectFormat(file, { maxLineBytes }).catch(() => undefined);
  if (!detection?.ok) return { file, kind: 'adapter' };
  // A JSONL file with no record at all is an (empty or blank-only) archive: its lines are counted as skipped.
  if (detection.layout === 'jsonl' && (detection.format === 'openai' || detection.format === undefined)) return { file, kind: 'archive', format: 'openai' };
  return { file, kind: 'adapter', format: detection.format };
}
