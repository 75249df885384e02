import type { Command } from './command.js';
import { convertCommand } from './commands/convert.js';
import { statsCommand } from './commands/stats.js';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [statsCommand, convertCommand];
