import type { AgentSource } from './types.js';
import { amp } from './agents/amp.js';
import { kimi } from './agents/kimi.js';
import { droid } from './agents/droid.js';
import { claudeCode } from './agents/claude-code.js';
import { codex } from './agents/codex.js';
import { gemini } from './agents/gemini.js';
import { continueAgent } from './agents/continue.js';
import { copilot } from './agents/copilot.js';
import { crush } from './agents/crush.js';
import { goose } from './agents/goose.js';
import { qwen } from './agents/qwen.js';
import { kilo, opencode } from './agents/opencode.js';
import { openclaw } from './agents/openclaw.js';
import { pi } from './agents/pi.js';
import { cline, kiloCode, rooCode } from './agents/vscode-tasks.js';
import { hermes } from './agents/hermes.js';
import { zed } from './agents/zed.js';

/** Every agent's source, in the order of AGENT_NAMES (the order `tcompact sources` lists them in). */
export const AGENT_SOURCES: readonly AgentSource[] = [
  claudeCode,
  codex,
  gemini,
  cline,
  rooCode,
  kiloCode,
  opencode,
  kilo,
  goose,
  pi,
  openclaw,
  amp,
  kimi,
  droid,
  qwen,
  continueAgent,
  copilot,
  crush,
  zed,
  hermes,
];
