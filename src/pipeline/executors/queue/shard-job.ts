import { gunzipSync, gzipSync } from 'node:zlib';
import type { ErrorInfo } from '../../../errors.js';
import type { InputItem } from '../../../formats/types.js';
import type { JobSettings, HandedOnTranscript, SectionSizes, ShardDescriptor } from '../../shard/types.js';

/** BullMQ job name of a shard. */
export const SHARD_JOB = 'shard';

/** What a shard job carries: the self-describing shard and where to put its output, never input bytes of a range. */
export interface ShardJobData {
  shard: ShardDescriptor;
  /** An items shard's items (read on the coordinator), as gzipped JSON in base64. */
  itemsGz?: string;
  job: JobSettings;
  /** DIR, absolute as the coordinator sees it: the worker commits the shard file there (a shared volume). */
  outDir: string;
  /** The coordinator's working directory, against which a relative input path was given. */
  cwd: string;
}

/** A job's result: small facts only; the shard's bytes are in its committed file. */
export interface ShardJobResult {
  index: number;
  /** True when the worker committed an error stand-in (the shard's outcome was an error, as data). */
  failed: boolean;
  /** SHA-256 of the body (transcripts, errors, refs sections) the worker committed. */
  sha256: string;
  sizes: SectionSizes;
  /** Transcripts left for the coordinator's LLM stage. */
  handedOn?: HandedOnTranscript[];
  /** A range shard's: SHA-256 of the input bytes the worker read, which the coordinator journals. */
  inputSha256?: string;
  /** `host:pid` of the worker process that ran it. */
  worker: string;
  /** 1 for the first try. */
  attempt: number;
  ms: number;
}

export function shardJobId(index: number): string {
  return `shard-${index}`;
}

export function encodeItems(items: readonly InputItem[]): string {
  return gzipSync(JSON.stringify(items)).toString('base64');
}

export function decodeItems(itemsGz: string): InputItem[] {
  return JSON.parse(gunzipSync(Buffer.from(itemsGz, 'base64')).toString('utf8')) as InputItem[];
}

/** Marks a job's failure reason that carries an ErrorInfo, so the coordinator reads the code back rather than a prefix. */
const ERROR_TAG = 'tcompact-error:';

/**
 * A job failure as data. BullMQ keeps only a message per failed attempt, so the error travels as tagged JSON in it; a
 * failure without the tag is a crash (a dead worker, a thrown bug) and stays plain text.
 */
export function encodeJobError(error: ErrorInfo): string {
  return `${ERROR_TAG}${JSON.stringify({ code: error.code, message: error.message })}`;
}

export function decodeJobError(reason: string): ErrorInfo | undefined {
  if (!reason.startsWith(ERROR_TAG)) return undefined;
  try {
    const parsed = JSON.parse(reason.slice(ERROR_TAG.length)) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') return { code: parsed.code as ErrorInfo['code'], message: parsed.message };
  } catch {
    // Not ours after all: a crash message that happens to start with the tag.
  }
  return undefined;
}
