import type { Adapter } from './adapters.js';
import type { FormatName } from './types.js';

/**
 * Each format's reader as ADAPTERS has it (adapters.ts), its module loaded when a file of that format is read: a
 * process that reads Claude Code sessions loads no other agent's reader.
 */
const LOADERS: Readonly<Record<FormatName, () => Promise<Adapter>>> = {
  openai: async () => (await import('./openai-jsonl.js')).readOpenAIArchive,
  messages: async () => (await import('./messages.js')).readMessages,
  'claude-code': async () => (await import('./claude-code.js')).readClaudeCode,
  anthropic: async () => (await import('./anthropic.js')).readAnthropic,
  'swe-agent': async () => (await import('./swe-agent.js')).readSweAgent,
  openhands: async () => (await import('./openhands.js')).readOpenHands,
  codex: async () => (await import('./codex.js')).readCodex,
  gemini: async () => (await import('./gemini-chat.js')).readGeminiChat,
  'gemini-checkpoint': async () => (await import('./gemini-checkpoint.js')).readGeminiCheckpoint,
  cline: async () => (await import('./cline.js')).readCline,
  'cline-sdk': async () => (await import('./cline-sdk.js')).readClineSdk,
  opencode: async () => (await import('./opencode.js')).readOpenCode,
  'opencode-db': async () => (await import('./opencode-db.js')).readOpenCodeDatabase,
  goose: async () => (await import('./goose.js')).readGoose,
  'goose-db': async () => (await import('./goose-db.js')).readGooseDatabase,
  aider: async () => (await import('./aider.js')).readAider,
  qwen: async () => (await import('./qwen.js')).readQwen,
  continue: async () => (await import('./continue.js')).readContinue,
  pi: async () => (await import('./pi.js')).readPi,
  openclaw: async () => (await import('./pi.js')).readOpenClaw,
  amp: async () => (await import('./amp.js')).readAmp,
  kimi: async () => (await import('./kimi.js')).readKimi,
  'kimi-code': async () => (await import('./kimi-code.js')).readKimiCode,
  droid: async () => (await import('./droid.js')).readDroid,
  copilot: async () => (await import('./copilot.js')).readCopilot,
  crush: async () => (await import('./crush.js')).readCrushDatabase,
  zed: async () => (await import('./zed.js')).readZedThreads,
  hermes: async () => (await import('./hermes.js')).readHermesState,
};

/** The reader of a format, loaded on first use. */
export function loadAdapter(format: FormatName): Promise<Adapter> {
  return LOADERS[format]();
}
