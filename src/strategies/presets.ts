import { autoSteps } from './auto.js';
import type { CompactConfig } from './compact-config.js';
import type { PipelineStep } from './runner.js';

/** A named pipeline that expands into several steps; `buildSteps` and the CLI treat its name like a strategy's. */
type Preset = (config: CompactConfig, stepFor: (name: string) => PipelineStep) => PipelineStep[];

export const PRESETS: Readonly<Record<string, Preset>> = { auto: autoSteps };
