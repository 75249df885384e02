import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { AtomicFile, fsyncDir } from '../../io/atomic-file.js';
import { decodeLine, readLines } from '../../io/line-reader.js';
import { TRANSCRIPTS_FILE } from '../../pipeline/store/ordered-writer.js';
import type { Transcript } from '../../model/transcript.js';
import { REFS_FILE, readRefFile } from '../../refs/ref-file.js';
import { tcompactMetadata } from '../../refs/recipe.js';
import { restoreTranscript } from '../../refs/restore.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/restore.js';

/** The compacted archive and its side store: `run` output (a directory) or `compact` output (FILE.jsonl). */
export async function restoreSources(path: string): Promise<{ transcripts: string; refs: string }> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (err) {
    throw new TcompactError('E_IO', `restore: cannot read ${path}: ${(err as Error).message}`);
  }
  if (isDirectory) return { transcripts: join(path, TRANSCRIPTS_FILE), refs: join(path, REFS_FILE) };
  // `compact --out FILE.jsonl` writes its side store to FILE.refs.jsonl.
  const base = path.endsWith('.jsonl') ? path.slice(0, -'.jsonl'.length) : path;
  return { transcripts: path, refs: `${base}.refs.jsonl` };
}

/** An archive line as written: parsed as plain JSON (no schema), so key order and every byte of it are kept. */
function asTranscript(value: unknown): Transcript | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const t = value as Record<string, unknown>;
  return typeof t.id === 'string' && Array.isArray(t.messages) ? (value as Transcript) : undefined;
}

/** What 'tcompact restore' does with its parsed flags; loaded only when the command runs. */
export async function restoreAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const maxLineBytes = values['max-line-bytes'];
  const sources = await restoreSources(positionals[0]);
  if (!existsSync(sources.transcripts)) throw new TcompactError('E_IO', `restore: ${sources.transcripts} does not exist`);
  const refs = existsSync(sources.refs) ? await readRefFile(sources.refs) : new Map<string, string>();
  if (!existsSync(sources.refs)) io.stderr.write(`restore: ${sources.refs} not found; only transcripts that were not compacted can be restored\n`);

  const counts = { restored: 0, unchanged: 0, failed: 0, skipped: 0 };
  const out = await AtomicFile.create(values.out);
  try {
    for await (const raw of readLines(sources.transcripts, { maxLineBytes })) {
      const where = `${sources.transcripts}:${raw.line}`;
      const decoded = decodeLine(raw, maxLineBytes);
      if (decoded.kind === 'blank') {
        counts.skipped++;
        continue;
      }
      if (decoded.kind === 'error') {
        counts.failed++;
        io.stderr.write(`${where}: ${decoded.error.code}: ${decoded.error.message}\n`);
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(decoded.text);
      } catch (err) {
        counts.failed++;
        io.stderr.write(`${where}: E_JSON: ${(err as Error).message}\n`);
        continue;
      }
      const transcript = asTranscript(value);
      if (!transcript) {
        counts.failed++;
        io.stderr.write(`${where}: E_SCHEMA: not a transcript (an object with a string id and a messages array)\n`);
        continue;
      }
      const compacted = tcompactMetadata(transcript) !== undefined;
      const restored = restoreTranscript(transcript, refs);
      if (!restored.ok) {
        counts.failed++;
        io.stderr.write(`${where}: ${restored.error.code}: ${restored.error.message}\n`);
        continue;
      }
      await out.write(`${JSON.stringify(restored.value)}\n`);
      if (compacted) counts.restored++;
      else counts.unchanged++;
    }
    await out.rename();
  } catch (err) {
    await out.discard();
    throw err;
  }
  await fsyncDir(dirname(values.out));
  io.stdout.write(
    `restore: ${counts.restored} restored, ${counts.unchanged} unchanged, ${counts.failed} failed, ${counts.skipped} blank lines skipped -> ${values.out}\n`,
  );
  return counts.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK;
}
