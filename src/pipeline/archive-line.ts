// The shard runner turns raw lines of a canonical archive into items exactly as `readOpenAIArchive` does.
export { archiveLineItem } from '../formats/openai-jsonl.js';
