import { TcompactError } from '../errors.js';
import type { SourceEnvironment } from '../sources/types.js';
import { type FlagTable, type ParsedFlags, type PositionalsCheck, parseFlags } from './flags.js';
import { type HelpText, renderHelp } from './usage.js';

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where to look for the user's agent sessions when a command is given no input. @default the process's own (currentEnvironment) */
  environment?: SourceEnvironment;
}

/** A loaded command; its one-line summary is in the command table (commands.ts), which help lists without loading it. */
export interface Command {
  name: string;
  /** Every flag the command takes: what it parses and what its help lists. */
  flags: FlagTable;
  /** Full help text: usage line and options. */
  help: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

/** A command as written: its flag table, its help text around the flags, and what it does with the parsed flags. */
export interface CommandSpec<F extends FlagTable> extends HelpText {
  name: string;
  flags: F;
  /** Checks the inputs before any flag value (see PositionalsCheck). @default any number of inputs */
  positionals?: PositionalsCheck;
  run(args: ParsedFlags<F>, io: CliIO): Promise<number>;
}

/** The command whose help, parsing and validation all come from its one flag table. */
export function defineCommand<const F extends FlagTable>(spec: CommandSpec<F>): Command {
  return {
    name: spec.name,
    flags: spec.flags,
    help: renderHelp(spec, spec.flags),
    run: async (argv, io) => spec.run(parseFlags(spec.name, argv, spec.flags, spec.positionals), io),
  };
}

/** The check of a command that reads one input or more. */
export function requireInputs(command: string): PositionalsCheck {
  return (positionals) => {
    if (positionals.length === 0) throw new TcompactError('E_USAGE', `${command}: no input given (see 'tcompact ${command} --help')`);
  };
}
