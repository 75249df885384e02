import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { crashMessage } from '../settle-shard.js';
import type { ShardPool } from '../shard-pool.js';
import { bodyParts } from '../../shard/encoding.js';
import { failedShardOutput } from '../../shard/failed-shard.js';
import { type ShardOutput, withInputHash } from '../../shard/types.js';
import { SHARDS_DIR, commitShard } from '../../store/shard-store.js';
import { type ShardJobData, type ShardJobResult, decodeItems, encodeJobError } from './shard-job.js';

/** `host:pid`, how a worker process names itself in results and logs. */
const WORKER_ID = `${hostname()}:${process.pid}`;

/** An environment fault (a path this machine cannot use), not a crash: it fails the job with the error as data. */
function ioFault(message: string): Error {
  return new Error(encodeJobError({ code: 'E_IO', message }));
}

/**
 * Runs one shard job on this process's pool and commits the shard file into DIR itself, so only small facts go back
 * through Redis. An outcome that is an error (as data) is committed as its stand-in, as the local pipeline does; a
 * crash of the pool's worker throws, so BullMQ retries the job (maybe on another machine) with backoff.
 */
export async function processShardJob(data: ShardJobData, attempt: number, pool: ShardPool): Promise<ShardJobResult> {
  const started = performance.now();
  const { shard, outDir } = data;
  await checkPaths(data);
  const items = data.itemsGz === undefined ? undefined : decodeItems(data.itemsGz);
  let outcome: Awaited<ReturnType<ShardPool['run']>>;
  try {
    outcome = await pool.run({ shard, items, job: data.job, attempt });
  } catch (err) {
    throw new Error(crashMessage(err));
  }
  let output: ShardOutput;
  let failed = false;
  if (outcome.ok) output = outcome.value;
  else {
    output = await failedShardOutput(shard, items, outcome.error);
    failed = true;
  }
  try {
    await commitShard(outDir, withInputHash(shard, output), output, failed);
  } catch (err) {
    throw ioFault(`cannot commit shard ${shard.index} into ${outDir} on ${hostname()}: ${(err as Error).message}`);
  }
  const sha256 = createHash('sha256');
  for (const part of bodyParts(output)) sha256.update(part);
  const result: ShardJobResult = {
    index: shard.index,
    failed,
    sha256: sha256.digest('hex'),
    sizes: output.sizes,
    worker: WORKER_ID,
    attempt,
    ms: Math.round(performance.now() - started),
  };
  if (output.handedOn) result.handedOn = output.handedOn;
  if (output.inputSha256 !== undefined) result.inputSha256 = output.inputSha256;
  return result;
}

/** Inputs and DIR must be at the same path on every machine: say which path this one lacks, and where. */
async function checkPaths(data: ShardJobData): Promise<void> {
  const input = data.shard.kind === 'range' ? data.shard.file : undefined;
  if (input !== undefined && !isAbsolute(input) && process.cwd() !== data.cwd) {
    throw ioFault(
      `the input "${input}" was given relative to ${data.cwd} on the coordinator, but this worker on ${hostname()} runs in ${process.cwd()}; give absolute paths or start workers in the same directory`,
    );
  }
  if (input !== undefined) await mustAccess(input, constants.R_OK, 'read the input');
  await mustAccess(join(data.outDir, SHARDS_DIR), constants.W_OK, 'write the output directory');
}

async function mustAccess(path: string, mode: number, what: string): Promise<void> {
  try {
    await access(path, mode);
  } catch (err) {
    throw ioFault(`cannot ${what} ${path} on ${hostname()} (inputs and DIR must be at the same path on every machine): ${(err as Error).message}`);
  }
}
