import type { PipelineStep } from './runner.js';
import type { CompactConfig } from './pipeline-config.js';

/**
 * Named pipelines that expand into several steps (e.g. `auto`). A preset file registers itself here; the CLI and
 * `buildSteps` treat a preset name like a strategy name.
 */
export type Preset = (config: CompactConfig, stepFor: (name: string) => PipelineStep) => PipelineStep[];

export const PRESETS: Record<string, Preset> = {};
