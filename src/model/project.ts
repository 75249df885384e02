import type { Transcript } from './transcript.js';

/**
 * Where each reader records the project a session belongs to, in the order they are looked at: the folder the agent
 * worked in (Claude Code, Codex, pi and OpenClaw `cwd`, Cline's and Roo Code's `workspace`, goose's `working_dir`, OpenCode's
 * `directory`), or what stands for it (Gemini CLI's `projectHash`, the SHA-256 of that folder). These are what
 * `--project` matches when sessions are discovered (src/sources/agents/), read back from the transcript.
 */
const PROJECT_KEYS = ['cwd', 'workspace', 'working_dir', 'directory', 'projectHash'] as const;

/**
 * A transcript's project, as its reader recorded it in metadata (a canonical archive keeps it); undefined when it
 * records none (SWE-agent, OpenHands, tau-bench, aider, a Gemini CLI checkpoint).
 */
export function transcriptProject(transcript: Pick<Transcript, 'metadata'>): string | undefined {
  const metadata = transcript.metadata;
  if (metadata === undefined) return undefined;
  for (const key of PROJECT_KEYS) {
    const value = metadata[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
