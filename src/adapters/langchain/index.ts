export { tcompactMiddleware } from './middleware.js';
export { fromLangChain, fromLangChainMessage, toLangChain, toLangChainMessage } from './langchain-messages.js';
export type { AdapterHooks, CheckReport } from '../conversation.js';
