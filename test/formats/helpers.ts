import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { InputItem } from '../../src/formats/types.js';
import { findViolations } from '../../src/model/validity.js';
import { restoreTranscript } from '../../src/refs/restore.js';
import { buildSteps } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { compactTranscript } from '../../src/strategies/compact-transcript.js';
import { makeContext } from '../helpers/transcript-kit.js';
import type { Transcript } from '../../src/model/transcript.js';
import { corpusPath } from '../helpers/corpus.js';
import { BUNDLED } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

export const SPOTTER = corpusPath('spotter', 'files', 'test', 'fixtures', 'transcripts');
/** spotter's short.jsonl, tool_heavy.jsonl and subagent.jsonl, bundled byte for byte (datasets/bundled/claude-code). */
export const BUNDLED_CLAUDE_CODE = join(BUNDLED, 'claude-code');
export const SESSION_SHARE = corpusPath('session-share', 'files', 'samples', 'claude-code-projects');
/** tau-bench's and OpenHands' files are bundled whole (byte for byte, see datasets/licenses). */
export const TAU_BENCH = join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json');
export const SWE_AGENT = corpusPath('swe-agent', 'files');
export const OPENHANDS = join(BUNDLED, 'openhands');
/** aider's maintainer's chat history (1,133 sessions), the one aider history in the corpus. */
export const AIDER_HISTORY = corpusPath('aider', 'files', 'tests', 'fixtures', 'chat-history.md');
export const CODEX_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'codex');

export const READ = { maxLineBytes: 64 * 1024 * 1024 };

export async function collect(items: AsyncIterable<InputItem>): Promise<InputItem[]> {
  const out: InputItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export type TranscriptItem = Extract<InputItem, { kind: 'transcript' }>;
export type ErrorItem = Extract<InputItem, { kind: 'error' }>;
export type SkippedItem = Extract<InputItem, { kind: 'skipped' }>;

export const transcriptsOf = (items: InputItem[]): TranscriptItem[] => items.filter((i): i is TranscriptItem => i.kind === 'transcript');
export const errorsOf = (items: InputItem[]): ErrorItem[] => items.filter((i): i is ErrorItem => i.kind === 'error');
export const skippedOf = (items: InputItem[]): SkippedItem[] => items.filter((i): i is SkippedItem => i.kind === 'skipped');

/** Input units the items account for: transcript lines, error lines (default 1), one per skipped item. */
export function accountedUnits(items: InputItem[]): number {
  let n = 0;
  for (const i of items) n += i.kind === 'transcript' ? i.lines : i.kind === 'error' ? (i.lines ?? 1) : 1;
  return n;
}

/** Files under `dir` whose name matches, recursively, sorted. */
export function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, pattern));
    else if (pattern.test(name)) out.push(path);
  }
  return out.sort();
}

const rawCache = new Map<string, Record<string, unknown>[]>();
/** The parsed lines of a JSONL file, read independently of the adapters (the file is small enough); cached. */
export function rawJsonl(file: string): Record<string, unknown>[] {
  let records = rawCache.get(file);
  if (!records) {
    records = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    rawCache.set(file, records);
  }
  return records;
}

export function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

let scratch: string | undefined;
/** Writes a scratch file for a hand-made case and returns its path (in a folder removed with the test or file). */
export function scratchFile(name: string, content: string | Buffer): string {
  if (scratch === undefined || !existsSync(scratch)) scratch = tempDir('formats');
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
}

export function byId(items: InputItem[]): Map<string, Transcript> {
  return new Map(transcriptsOf(items).map((i) => [i.transcript.id, i.transcript]));
}

/**
 * Compacts each transcript with the default steps in `window` tokens, checks the output is valid, and restores it as
 * `restore` reads it (parsed back from JSON): it must be the converted input byte for byte. Returns how many
 * transcripts compaction changed, so a test can show it restored something.
 */
export function expectCompactRestores(transcripts: readonly Transcript[], window = 16_000): number {
  const steps = buildSteps(parseCompactConfig({ window }));
  let changed = 0;
  for (const input of transcripts) {
    const ctx = { ...makeContext(), window };
    const r = compactTranscript(input, steps, ctx);
    expect(findViolations(r.transcript.messages), input.id).toEqual([]);
    if (r.tokensAfter < r.tokensBefore) changed++;
    const back = restoreTranscript(JSON.parse(JSON.stringify(r.transcript)) as Transcript, ctx.refs!);
    if (!back.ok) throw new Error(back.error.message);
    expect(JSON.stringify(back.value) === JSON.stringify(input), `restore of ${input.id}`).toBe(true);
  }
  return changed;
}
