export { MAX_BREAKPOINTS, type TcompactAnthropic, tcompactAnthropic } from './edit-params.js';
export { fromAnthropic, fromAnthropicMessage, toAnthropic, toAnthropicBlocks } from './anthropic-messages.js';
export type { AdapterHooks, CheckReport } from '../conversation.js';
