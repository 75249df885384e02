import type { ShardDescriptor, ShardOutput } from '../shard/types.js';

/**
 * Main-thread work on a shard's output after the worker returns it and before it commits: the LLM summarizer plugs in
 * here (workers never call the network). It must keep the shard's transcripts in order, one line per transcript, and
 * keep `report.transcripts` aligned with them; it may add steps and refs. A hook that fails rejects, and the run stops
 * with its error, like a commit failure.
 */
export type ShardHook = (output: ShardOutput, shard: ShardDescriptor, signal: AbortSignal) => Promise<ShardOutput>;
