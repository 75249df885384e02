import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInProcessExecutor } from '../../../src/pipeline/executors/in-process-executor.js';
import { createJob } from '../../../src/pipeline/job/job.js';
import { type RunSettings, resolveRunSettings } from '../../../src/pipeline/job/settings.js';
import { resolveInputSources } from '../../../src/pipeline/plan/input-sources.js';
import { planShards, type PlannedShard } from '../../../src/pipeline/plan/plan-shards.js';
import { sectionTexts } from '../../../src/pipeline/shard/encoding.js';
import type { ShardOutput } from '../../../src/pipeline/shard/types.js';
import { SIDE_STORE_HEADER } from '../../../src/refs/ref-file.js';
import { parseCompactConfig } from '../../../src/strategies/compact-config.js';
import { TEST_STRATEGIES, writeRealArchive } from '../helpers.js';

export interface RealShard {
  planned: PlannedShard;
  output: ShardOutput;
}

/** What the final files must hold after a merge of `all`: every shard's sections in shard order, the side store after its header. */
export function mergedFiles(all: readonly RealShard[]): { transcripts: string; errors: string; refs: string } {
  const texts = all.map((s) => sectionTexts(s.output));
  return {
    transcripts: texts.map((t) => t.transcripts).join(''),
    errors: texts.map((t) => t.errors).join(''),
    refs: SIDE_STORE_HEADER + texts.map((t) => t.refs).join(''),
  };
}

/**
 * A copy of `output` in buffers of its own, laid out as the original is (the refs section's pieces in the body or in
 * buffers apart): freeing a buffer empties every view of it.
 */
export function ownCopy(output: ShardOutput): ShardOutput {
  const body = Buffer.from(output.body);
  const copy = (part: Uint8Array): Uint8Array => {
    if (part.buffer === output.body.buffer)
      return body.subarray(part.byteOffset - output.body.byteOffset, part.byteOffset - output.body.byteOffset + part.byteLength);
    const own = Buffer.allocUnsafeSlow(part.buffer.byteLength);
    own.set(new Uint8Array(part.buffer));
    return own.subarray(part.byteOffset, part.byteOffset + part.byteLength);
  };
  return { ...output, body, ...(output.refParts ? { refParts: output.refParts.map(copy) } : {}) };
}

interface Planned {
  archive: string;
  planned: PlannedShard[];
  settings: RunSettings;
}

/**
 * Real bundled transcripts (plus one malformed line, so a shard has an error section) as a canonical archive in
 * `dir`, cut into small shards as a run plans them.
 */
export async function plannedShards(dir: string): Promise<Planned> {
  const archive = join(dir, 'archive.jsonl');
  const lines = await writeRealArchive(archive, { count: 24, maxLineBytes: 200_000 });
  writeFileSync(archive, `${lines.slice(0, 6).join('\n')}\n{"id": "broken", \n${lines.slice(6).join('\n')}\n`);
  const settings = resolveRunSettings({ inputs: [archive], shardBytes: 64 * 1024 }, createJob(parseCompactConfig({ strategies: TEST_STRATEGIES })));
  const sources = await resolveInputSources([archive], settings.maxLineBytes);
  const planned: PlannedShard[] = [];
  for await (const p of planShards(sources, { shardBytes: settings.shardBytes, maxItemsPerShard: 1000, maxLineBytes: settings.maxLineBytes })) planned.push(p);
  return { archive, planned, settings };
}

/** The same shards run in this thread: what a run would commit, without a pool or the CLI. */
export async function realShards(dir: string): Promise<{ archive: string; shards: RealShard[] }> {
  const { archive, planned: all, settings } = await plannedShards(dir);
  const executor = createInProcessExecutor(settings.job, new AbortController().signal);
  const shards: RealShard[] = [];
  try {
    for (const planned of all) {
      const run = await executor.run(planned);
      if (run?.kind !== 'output') throw new Error(`shard ${planned.shard.index}: ${JSON.stringify(run)}`);
      shards.push({ planned, output: run.output });
    }
  } finally {
    await executor.close();
  }
  return { archive, shards };
}
