import type { Command } from './command.js';

/**
 * A command as the top-level help lists it. Its module (flag table, help, action) is loaded only when the command is
 * dispatched: a process loads one command's imports, never all of them.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'stats',
    summary: 'token breakdown per transcript and in total, against a context window',
    load: async () => (await import('./commands/stats.js')).statsCommand,
  },
  {
    name: 'sources',
    summary: "where this user's agents keep their sessions, and what each folder holds",
    load: async () => (await import('./commands/sources.js')).sourcesCommand,
  },
  {
    name: 'convert',
    summary: 'convert agent transcripts (Claude Code, Codex, Gemini CLI, Cline, aider, SWE-agent, OpenHands...) to the canonical archive',
    load: async () => (await import('./commands/convert.js')).convertCommand,
  },
  {
    name: 'compact',
    summary: 'compact transcripts with mechanical strategies in one process; writes the archive, side store and report',
    load: async () => (await import('./commands/compact.js')).compactCommand,
  },
  {
    name: 'restore',
    summary: 'rebuild the uncompacted transcripts of a compacted archive from its side store, byte for byte',
    load: async () => (await import('./commands/restore.js')).restoreCommand,
  },
  {
    name: 'run',
    summary: 'compact whole archives on a worker pool: ordered, resumable output with errors and a report',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  {
    name: 'view',
    summary: 'write a page per transcript of a run: before and after compaction, message by message',
    load: async () => (await import('./commands/view.js')).viewCommand,
  },
  {
    name: 'eval',
    summary: 'score what each strategy keeps: deterministic probes (files, commands, errors, requests, open tasks), recall and tokens',
    load: async () => (await import('./commands/eval.js')).evalCommand,
  },
  {
    name: 'simulate',
    summary: 'replay transcripts as agent loops under compaction policies: tokens billed, compactions, cost',
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
  {
    name: 'tune',
    summary: 'derive live compaction settings from an archive: candidates replayed, the cheapest that keeps what agents needed, exported',
    load: async () => (await import('./commands/tune.js')).tuneCommand,
  },
  {
    name: 'worker',
    summary: "take shards of distributed runs ('run --queue') from Redis and process them, on any machine",
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
];
