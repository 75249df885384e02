import { type ErrorInfo, type Outcome, errorInfoOf } from '../errors.js';
import type { Transcript } from '../model/transcript.js';
import type { TokenizerEngine } from '../tokens/bpe-engines.js';
import { type TokenizerName, getTokenizer } from '../tokens/tokenizer.js';
import type { ReplayOptionsInput } from './replay-options.js';
import { type SimulateOptions, Simulation } from './simulation.js';
import type { TranscriptReplay, TranscriptSource } from './transcript-replay.js';

/** The options of a Simulation that cross to a worker thread: plain data, the tokenizer by name (never a model). */
export type ReplaySettings = Omit<ReplayOptionsInput, 'batch'> & {
  tokenizer: { name: TokenizerName; engine: TokenizerEngine | null };
};

export interface ReplayTask {
  settings: ReplaySettings;
  transcript: Transcript;
  source: TranscriptSource;
}

export type ReplayOutcome = Outcome<TranscriptReplay, ErrorInfo>;

function simulateOptionsOf(settings: ReplaySettings): SimulateOptions {
  const { name, engine } = settings.tokenizer;
  return { ...settings, tokenizer: getTokenizer(name, engine ?? undefined) };
}

/** One Simulation per settings in this thread: its policies are resolved (their files read) once, not per transcript. */
const simulations = new Map<string, Simulation>();

/** The worker's task: one transcript replayed under every policy. Errors come back as data, like every outcome. */
export async function replayTask(task: ReplayTask): Promise<ReplayOutcome> {
  try {
    const key = JSON.stringify(task.settings);
    let simulation = simulations.get(key);
    if (!simulation) simulations.set(key, (simulation = new Simulation(simulateOptionsOf(task.settings))));
    return { ok: true, value: await simulation.replayTranscript(task.transcript, task.source) };
  } catch (err) {
    return { ok: false, error: errorInfoOf(err) };
  }
}
