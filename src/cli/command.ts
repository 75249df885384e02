import { parseArgs, type ParseArgsConfig } from 'node:util';
import { TcompactError } from '../errors.js';
import type { SourceEnvironment } from '../sources/types.js';

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where to look for the user's agent sessions when a command is given no input. @default the process's own (currentEnvironment) */
  environment?: SourceEnvironment;
}

export interface Command {
  name: string;
  summary: string;
  /** Full help text: usage line and options. */
  help: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** parseArgs with strict checking; a bad flag becomes an E_USAGE error naming the command. */
export function parseCommandArgs<const O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new TcompactError('E_USAGE', `${command}: ${(err as Error).message}`);
  }
}

/** Parses a flag value as an integer within [min, max], with an exact message otherwise. */
export function intOption(name: string, value: string | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new TcompactError('E_USAGE', `--${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

export function requireInputs(command: string, positionals: string[]): string[] {
  if (positionals.length === 0) throw new TcompactError('E_USAGE', `${command}: no input given (see 'tcompact ${command} --help')`);
  return positionals;
}
