import { copyFileSync, cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED } from './paths.js';

const CLAUDE_CODE = join(BUNDLED, 'claude-code');
/** The bundled long Claude Code session (2.7 MB, 2,385 lines), beside its subagents' folder. */
export const LONG_SESSION = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';

/**
 * The first `lines` lines of the long session, as Claude Code leaves the file part way through: the same id, start
 * and folder. Replaying the whole session costs tens of seconds of CPU per command; a test that needs a session past a
 * window, not that session's every call, reads a head of it.
 */
export function longSessionHead(lines: number): string {
  return readFileSync(join(CLAUDE_CODE, `${LONG_SESSION}.jsonl`), 'utf8')
    .split('\n')
    .slice(0, lines)
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * Writes into `dir` (made) the bundled Claude Code folder with the long session cut to its first `lines` lines; with
 * `alone`, that session only. Returns `dir`.
 */
export function claudeCodeWithLongSessionHead(dir: string, lines: number, options: { alone?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${LONG_SESSION}.jsonl`), longSessionHead(lines));
  if (options.alone) return dir;
  cpSync(join(CLAUDE_CODE, LONG_SESSION), join(dir, LONG_SESSION), { recursive: true });
  for (const name of readdirSync(CLAUDE_CODE))
    if (name.endsWith('.jsonl') && name !== `${LONG_SESSION}.jsonl`) copyFileSync(join(CLAUDE_CODE, name), join(dir, name));
  return dir;
}
