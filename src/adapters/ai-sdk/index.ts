export { type AiSdkHooks, type TcompactPrepareStep, tcompactPrepareStep } from './prepare-step.js';
export { fromModelMessage, fromModelMessages, toModelMessage, toModelMessages } from './model-messages.js';
export type { CheckReport } from '../conversation.js';
