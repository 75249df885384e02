import { readAider } from './aider.js';
import { readAmp } from './amp.js';
import { readAnthropic } from './anthropic.js';
import { readClaudeCode } from './claude-code.js';
import { readCline } from './cline.js';
import { readClineSdk } from './cline-sdk.js';
import { readCodex } from './codex.js';
import { readContinue } from './continue.js';
import { readCrushDatabase } from './crush.js';
import { readGeminiChat } from './gemini-chat.js';
import { readGeminiCheckpoint } from './gemini-checkpoint.js';
import { readCopilot } from './copilot.js';
import { readDroid } from './droid.js';
import { readGoose } from './goose.js';
import { readGooseDatabase } from './goose-db.js';
import { readKimi } from './kimi.js';
import { readKimiCode } from './kimi-code.js';
import { readMessages } from './messages.js';
import { readOpenAIArchive } from './openai-jsonl.js';
import { readOpenCode } from './opencode.js';
import { readOpenCodeDatabase } from './opencode-db.js';
import { readOpenHands } from './openhands.js';
import { readQwen } from './qwen.js';
import { readOpenClaw, readPi } from './pi.js';
import { readSweAgent } from './swe-agent.js';
import { readZedThreads } from './zed.js';
import { readHermesState } from './hermes.js';
import type { FormatName, InputItem, ReadOptions } from './types.js';

export type Adapter = (file: string, options: ReadOptions) => AsyncGenerator<InputItem>;

/** The reader of each input format. */
export const ADAPTERS: Readonly<Record<FormatName, Adapter>> = {
  openai: readOpenAIArchive,
  messages: readMessages,
  'claude-code': readClaudeCode,
  anthropic: readAnthropic,
  'swe-agent': readSweAgent,
  openhands: readOpenHands,
  codex: readCodex,
  gemini: readGeminiChat,
  'gemini-checkpoint': readGeminiCheckpoint,
  cline: readCline,
  'cline-sdk': readClineSdk,
  opencode: readOpenCode,
  'opencode-db': readOpenCodeDatabase,
  goose: readGoose,
  'goose-db': readGooseDatabase,
  aider: readAider,
  qwen: readQwen,
  continue: readContinue,
  pi: readPi,
  openclaw: readOpenClaw,
  amp: readAmp,
  kimi: readKimi,
  'kimi-code': readKimiCode,
  droid: readDroid,
  copilot: readCopilot,
  crush: readCrushDatabase,
  zed: readZedThreads,
  hermes: readHermesState,
};
