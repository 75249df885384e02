import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Transcript } from '../../src/model/transcript.js';
import { RefSink } from '../../src/refs/ref-store.js';
import { buildSteps, stepFor } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { PRESETS } from '../../src/strategies/presets.js';
import { STRATEGIES } from '../../src/strategies/registry.js';
import { runSteps, type PipelineStep, type RunResult } from '../../src/strategies/runner.js';
import type { StrategyContext } from '../../src/strategies/types.js';
import { DEFAULT_WINDOW } from '../../src/tokens/window.js';
import { freshTokenizer } from './fresh-tokenizer.js';
import { ROOT } from './paths.js';

let loaded = false;

/**
 * Imports every module of src/strategies so strategies and presets that register themselves are in the registry,
 * however the registry ends up being filled. Returns the names of the strategies and presets.
 */
export async function loadStrategies(): Promise<{ strategies: string[]; presets: string[] }> {
  if (!loaded) {
    const dir = join(ROOT, 'src', 'strategies');
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.ts') || f.endsWith('.d.ts')) continue;
      await import(pathToFileURL(join(dir, f)).href);
    }
    loaded = true;
  }
  return { strategies: Object.keys(STRATEGIES).sort(), presets: Object.keys(PRESETS).sort() };
}

/**
 * The steps for one name. A single strategy runs alone (so its own cost is measured); a preset such as `auto` runs as
 * `tcompact` runs it, with `sanitize` first and last.
 */
export function stepsFor(names: readonly string[], tokenizer: 'o200k_base' | 'heuristic'): PipelineStep[] {
  const config = parseCompactConfig({ strategies: [...names], tokenizer });
  if (names.length === 1 && STRATEGIES[names[0]]) return [stepFor(names[0], config)];
  return buildSteps(config);
}

/** A context as a run has it: refs kept (a fresh sink), a fresh token cache. */
export function freshContext(tokenizer: 'o200k_base' | 'heuristic'): StrategyContext {
  return { tokenizer: freshTokenizer(tokenizer), refs: new RefSink(), window: DEFAULT_WINDOW };
}

export function runAll(transcripts: readonly Transcript[], steps: readonly PipelineStep[], ctx: StrategyContext): RunResult[] {
  return transcripts.map((t) => runSteps(t, steps, ctx));
}

/** The strategies' own code only: each step's `apply`, with no token accounting around it (`when` conditions ignored). */
export function applyAll(transcripts: readonly Transcript[], steps: readonly PipelineStep[], ctx: StrategyContext): Transcript[] {
  return transcripts.map((t) => {
    let cur = t;
    for (const step of steps) {
      if (step.strategy.async) throw new Error(`${step.strategy.name} is async: not benchmarked here`);
      cur = step.strategy.apply(cur, step.config as never, ctx).transcript;
    }
    return cur;
  });
}

/** The mechanical steps of `auto`, used for pipeline runs while the `auto` preset is not registered. */
const AUTO_MECHANICAL = ['strip-reasoning', 'dedup-tools', 'mask-observations', 'strip-attachments', 'prune-tools'];

/** What the pipeline benchmarks run: `auto`, or its mechanical steps until `auto` exists. */
export async function pipelineStrategies(): Promise<{ strategies: string[]; label: string; note?: string }> {
  const { strategies, presets } = await loadStrategies();
  if (presets.includes('auto') || strategies.includes('auto')) return { strategies: ['auto'], label: 'auto' };
  const steps = AUTO_MECHANICAL.filter((s) => strategies.includes(s));
  return {
    strategies: steps,
    label: "auto's mechanical steps",
    note: `the \`auto\` preset is not registered yet; the pipeline ran its mechanical steps: ${steps.join(', ')} (sanitize first and last)`,
  };
}
