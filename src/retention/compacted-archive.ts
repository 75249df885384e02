import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TcompactError } from '../errors.js';
import { readOpenAIArchive } from '../formats/openai-jsonl.js';
import type { InputItem, SourcePosition } from '../formats/types.js';
import type { ErrorCode } from '../errors.js';
import { parseTranscript } from '../model/parse.js';
import type { Transcript } from '../model/transcript.js';
import { readRefFile } from '../refs/ref-file.js';
import { restoreTranscript } from '../refs/restore.js';

/** Where a compacted archive is: its transcripts and its side store (see `restoreSources` in the restore command). */
interface CompactedSources {
  transcripts: string;
  refs: string;
}

/** A transcript of the compacted archive, restored: `transcript` is the original, `compacted` the line as written. */
type CompactedItem = InputItem | (Extract<InputItem, { kind: 'transcript' }> & { compacted: Transcript });

const errorItem = (at: SourcePosition, code: ErrorCode, message: string): InputItem => ({ kind: 'error', record: { ...at, code, message } });

/**
 * Reads a compacted archive line by line and gives each transcript back beside its original, restored from the side
 * store. Every line is one item, as with any input: a line that does not parse, or whose refs are missing or altered
 * (`E_REF`), is an error item; the others are transcripts. A transcript tcompact did not change is its own original.
 */
export async function* readCompactedArchive(sources: CompactedSources, options: { maxLineBytes: number }): AsyncGenerator<CompactedItem> {
  if (!existsSync(sources.transcripts)) throw new TcompactError('E_IO', `${sources.transcripts} does not exist`);
  if (!existsSync(sources.refs)) throw new TcompactError('E_IO', `${sources.refs} does not exist: the originals cannot be restored`);
  const refs = await readRefFile(sources.refs);
  for await (const item of readOpenAIArchive(sources.transcripts, { maxLineBytes: options.maxLineBytes })) {
    if (item.kind !== 'transcript') {
      yield item;
      continue;
    }
    const at = { file: item.file, line: item.line, byteOffset: item.byteOffset };
    const restored = restoreTranscript(item.transcript, refs);
    if (!restored.ok) {
      yield errorItem(at, restored.error.code, restored.error.message);
      continue;
    }
    const original =
      restored.value === item.transcript ? { ok: true as const, value: { transcript: item.transcript, warnings: [] } } : parseTranscript(restored.value);
    if (!original.ok) {
      yield errorItem(at, 'E_REF', `transcript "${item.transcript.id}": the restored original is not a transcript: ${original.error.message}`);
      continue;
    }
    yield { ...item, transcript: original.value.transcript, compacted: item.transcript };
  }
}

/**
 * What produced a `run` output directory, from its journal's header: the strategies joined with `+`, and ` @ MODEL`
 * when it had a model; undefined when there is no journal (a `compact` output file) or it cannot be read.
 */
export async function compactedBy(dir: string): Promise<string | undefined> {
  let header: unknown;
  try {
    const text = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    header = JSON.parse(text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length));
  } catch {
    return undefined;
  }
  const settings = (header as { settings?: { config?: { strategies?: unknown }; llm?: { model?: unknown } | null } } | null)?.settings;
  const strategies = settings?.config?.strategies;
  if (!Array.isArray(strategies) || !strategies.every((s) => typeof s === 'string')) return undefined;
  const model = settings?.llm?.model;
  return `${strategies.join('+')}${typeof model === 'string' ? ` @ ${model}` : ''}`;
}
