import { dirname } from 'node:path';
import type { ErrorRecord } from '../../errors.js';
import { toAnthropic } from '../../formats/anthropic-writer.js';
import { readInputs } from '../../formats/read-inputs.js';
import { type InputItem } from '../../formats/types.js';
import { isAssistant, isTool } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { AtomicFile, fsyncDir } from '../../io/atomic-file.js';
import { nothingYielded } from '../nothing-yielded.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS, OutputFormat } from '../commands/convert.js';

/** What a conversion read and wrote; printed by `convert` (as JSON with `--json`). */
interface ConvertSummary {
  transcripts: number;
  messages: number;
  toolCalls: number;
  toolResults: number;
  /** Assistant messages that carry reasoning. */
  reasoningMessages: number;
  /** Adapter repairs by kind (missingResultFilled, duplicateCallIdRenamed...). */
  repairs: Record<string, number>;
  /** Skipped lines or records by reason (`blank`, `record:<type>`). */
  skipped: Record<string, number>;
  errors: Record<string, number>;
  warnings: number;
  /** Input accounting: read = ok + failed + skipped (for whole-file JSON a "line" is a record). */
  lines: { read: number; ok: number; failed: number; skipped: number };
  out: string;
  errorsFile: string;
}

/** `out.jsonl` -> `out.errors.jsonl`; other names get `.errors.jsonl` appended. */
function errorsPathFor(out: string): string {
  return `${out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out}.errors.jsonl`;
}

const MAX_ERRORS_SHOWN = 20;
const FLUSH_BYTES = 1 << 20;

/** What 'tcompact convert' does with its parsed flags; loaded only when the command runs. */
export async function convertAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const { out, to, from } = values;
  const { inputs, label, sessions } = await inputsOrDiscovered('convert', positionals, values, io, out);
  const maxLineBytes = values['max-line-bytes'];
  const summary = await convert(inputs, { out, to, from, maxLineBytes, sessions }, io);
  if (values.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else io.stdout.write(renderSummary(summary));
  const failed = Object.values(summary.errors).reduce((n, k) => n + k, 0);
  const empty = nothingYielded(io, 'convert', label, { transcripts: summary.transcripts, failed, skippedByReason: summary.skipped });
  return empty ?? (failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
}

interface ConvertOptions {
  out: string;
  to: OutputFormat;
  from?: Parameters<typeof readInputs>[1]['from'];
  maxLineBytes: number;
  /** The selected sessions of each SQLite store among the inputs (discovery's). */
  sessions?: Parameters<typeof readInputs>[1]['sessions'];
}

/**
 * Converts every input to one archive. Both files are written under temporary names and renamed into place only when
 * complete, so a crash leaves either the previous files or the new ones, never a partial archive.
 */
export async function convert(inputs: string[], options: ConvertOptions, io: CliIO): Promise<ConvertSummary> {
  const errorsFile = errorsPathFor(options.out);
  const out = await AtomicFile.create(options.out);
  let errors: AtomicFile;
  try {
    errors = await AtomicFile.create(errorsFile);
  } catch (err) {
    await out.discard();
    throw err;
  }
  const summary: ConvertSummary = {
    transcripts: 0,
    messages: 0,
    toolCalls: 0,
    toolResults: 0,
    reasoningMessages: 0,
    repairs: {},
    skipped: {},
    errors: {},
    warnings: 0,
    lines: { read: 0, ok: 0, failed: 0, skipped: 0 },
    out: options.out,
    errorsFile,
  };
  let pending = '';
  let shownErrors = 0;
  try {
    for await (const item of readInputs(inputs, { maxLineBytes: options.maxLineBytes, from: options.from, sessions: options.sessions })) {
      if (item.kind === 'transcript') {
        count(summary, item);
        pending += `${JSON.stringify(options.to === 'anthropic' ? toAnthropic(item.transcript) : item.transcript)}\n`;
        if (pending.length >= FLUSH_BYTES) {
          await out.write(pending);
          pending = '';
        }
      } else if (item.kind === 'skipped') {
        summary.skipped[item.reason] = (summary.skipped[item.reason] ?? 0) + 1;
        summary.lines.skipped++;
      } else {
        const r: ErrorRecord = item.record;
        summary.errors[r.code] = (summary.errors[r.code] ?? 0) + 1;
        summary.lines.failed += item.lines ?? 1;
        await errors.write(`${JSON.stringify({ file: r.file, line: r.line, byteOffset: r.byteOffset, code: r.code, message: r.message })}\n`);
        if (shownErrors++ < MAX_ERRORS_SHOWN) io.stderr.write(`${r.file}:${r.line}: ${r.code}: ${r.message}\n`);
      }
    }
    await out.write(pending);
    await out.rename();
    await errors.rename();
    await fsyncDir(dirname(options.out));
  } catch (err) {
    await out.discard();
    await errors.discard();
    throw err;
  }
  if (shownErrors > MAX_ERRORS_SHOWN) io.stderr.write(`... and ${shownErrors - MAX_ERRORS_SHOWN} more errors in ${errorsFile}\n`);
  summary.lines.read = summary.lines.ok + summary.lines.failed + summary.lines.skipped;
  return summary;
}

function count(summary: ConvertSummary, item: Extract<InputItem, { kind: 'transcript' }>): void {
  const t: Transcript = item.transcript;
  summary.transcripts++;
  summary.lines.ok += item.lines;
  summary.messages += t.messages.length;
  summary.warnings += item.warnings.length;
  for (const m of t.messages) {
    if (isTool(m)) summary.toolResults++;
    else if (isAssistant(m)) {
      summary.toolCalls += m.tool_calls?.length ?? 0;
      if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') summary.reasoningMessages++;
    }
  }
  for (const [kind, n] of Object.entries(item.repairs)) summary.repairs[kind] = (summary.repairs[kind] ?? 0) + n;
}

function table(counts: Record<string, number>): string {
  const keys = Object.keys(counts).sort();
  if (keys.length === 0) return '  none\n';
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `  ${k.padEnd(width)}  ${counts[k]}\n`).join('');
}

function renderSummary(s: ConvertSummary): string {
  return [
    `Wrote ${s.transcripts} transcripts to ${s.out}: ${s.messages} messages, ${s.toolCalls} tool calls, ${s.toolResults} tool results, ${s.reasoningMessages} with reasoning\n`,
    `Lines: ${s.lines.read} read = ${s.lines.ok} converted + ${s.lines.failed} failed + ${s.lines.skipped} skipped\n`,
    `Repairs:\n${table(s.repairs)}`,
    `Skipped:\n${table(s.skipped)}`,
    `Errors (${s.errorsFile}):\n${table(s.errors)}`,
    s.warnings > 0 ? `Warnings: ${s.warnings}\n` : '',
  ].join('');
}
