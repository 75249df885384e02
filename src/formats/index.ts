// `tcompact/formats`: reading every supported input format as canonical transcripts (re-exports only).
export { readInputs, type ReadInputsOptions } from './read-inputs.js';
export { FORMAT_NAMES, type FormatName, type InputItem, type ReadOptions, type SourcePosition } from './types.js';
export { detectFormat, type Detection } from './detect.js';
export { ADAPTERS, type Adapter } from './adapters.js';
export { walkDataFiles } from './walk.js';
export { toAnthropic, type AnthropicConversation } from './anthropic-writer.js';
