import type { Command } from './command.js';
import { compactCommand } from './commands/compact.js';
import { convertCommand } from './commands/convert.js';
import { evalCommand } from './commands/eval.js';
import { restoreCommand } from './commands/restore.js';
import { runCommand } from './commands/run.js';
import { simulateCommand } from './commands/simulate.js';
import { sourcesCommand } from './commands/sources.js';
import { statsCommand } from './commands/stats.js';
import { tuneCommand } from './commands/tune.js';
import { viewCommand } from './commands/view.js';
import { workerCommand } from './commands/worker.js';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  statsCommand,
  sourcesCommand,
  convertCommand,
  compactCommand,
  restoreCommand,
  runCommand,
  viewCommand,
  evalCommand,
  simulateCommand,
  tuneCommand,
  workerCommand,
];
