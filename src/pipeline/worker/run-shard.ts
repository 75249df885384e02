import { createHash } from 'node:crypto';
import { errorInfoOf } from '../../errors.js';
import type { InputItem } from '../../formats/types.js';
import { archiveLineItem } from '../../formats/openai-jsonl.js';
import { type Compacted, compactInWorker, jobFor } from './worker-job.js';
import type { Job } from '../job/job.js';
import { readLines } from '../../io/line-reader.js';
import type { ShardOutcome, ShardTask } from '../shard/types.js';
import { ShardBuilder } from '../shard/shard-builder.js';

/** The format name recorded for transcripts of canonical archives. */
const CANONICAL_FORMAT = 'openai';

/**
 * Processes one shard inside a worker: reads a range shard's lines itself (hashing the bytes as they stream past, for
 * the journal) or takes an items shard's items, parses and validates them, compacts every transcript and counts its
 * tokens, and returns the serialized output. Every
 * expected failure comes back as data; only a crash of the worker itself loses the task.
 */
export async function runShard(task: ShardTask): Promise<ShardOutcome> {
  try {
    const job = jobFor(task.job);
    await job.prepare();
    const { shard } = task;
    if (shard.kind === 'range') {
      // The lines are views of chunks read for this shard alone: the output takes those of the lines the side store keeps.
      const builder = new ShardBuilder(shard.end - shard.start, true);
      const { maxLineBytes } = task.job;
      const hash = createHash('sha256');
      for await (const raw of readLines(shard.file, { maxLineBytes, start: shard.start, end: shard.end, firstLine: shard.firstLine, hash, views: true })) {
        addItem(builder, archiveLineItem(shard.file, raw, maxLineBytes), job, CANONICAL_FORMAT);
      }
      const output = builder.finish();
      output.inputSha256 = hash.digest('hex');
      return { ok: true, value: output };
    }
    const builder = new ShardBuilder();
    for (const item of task.items ?? []) addItem(builder, item, job, shard.format ?? 'unknown');
    return { ok: true, value: builder.finish() };
  } catch (err) {
    return { ok: false, error: errorInfoOf(err) };
  }
}

function addItem(builder: ShardBuilder, item: InputItem, job: Job, format: string): void {
  if (item.kind === 'skipped') {
    builder.addSkipped(item.reason);
    return;
  }
  if (item.kind === 'error') {
    builder.addError(item.record, item.lines ?? 1);
    return;
  }
  const at = { file: item.file, line: item.line, byteOffset: item.byteOffset };
  if (item.sourceBytes !== undefined) builder.refs.withSource(item.transcript, item.sourceBytes);
  let compacted: Compacted;
  try {
    compacted = compactInWorker(job, item.transcript, builder.refs);
  } catch (err) {
    // A strategy bug must not cost the rest of the shard: this transcript becomes an error, the shard goes on.
    const message = err instanceof Error ? err.message : String(err);
    builder.addError({ ...at, code: 'E_STRATEGY', message: `transcript "${item.transcript.id}": ${message}` }, item.lines);
    return;
  }
  const report = { ...compacted.report, file: item.file, line: item.line };
  const json = compacted.unchanged ? (item.sourceBytes ?? compacted.json) : compacted.json;
  builder.addTranscript(json, report, item.lines, format, item.warnings.length, item.repairs, compacted.resumeAt);
}
