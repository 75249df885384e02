import { type ErrorCode, TcompactError, errorInfoOf, isSystemError } from '../errors.js';
import type { CliIO } from './command.js';
import type { CommandEntry } from './commands.js';
import { EXIT } from './exit-codes.js';

const VERSION = '0.1.0';

function usage(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'tcompact: compact archives of LLM-agent transcripts',
    '',
    'Usage: tcompact <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'tcompact <command> --help' for a command's options.",
    '',
    'Exit codes: 0 ok, 1 some input failed (see errors.jsonl), 2 usage or config error,',
    '3 resume refused, 70 internal error, 74 a file could not be read or written (E_IO), 130 interrupted.',
  ].join('\n');
}

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  // Loaded here so that --version loads no command table; the table loads only the command dispatched (commands.ts),
  // and that command loads what it runs when it runs (see defineCommand).
  const { COMMANDS } = await import('./commands.js');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${usage(COMMANDS)}\n`);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`tcompact: unknown command "${name}"\n\n${usage(COMMANDS)}\n`);
    return EXIT.USAGE;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.help}\n`);
    return EXIT.OK;
  }
  // Every command whose outputs people share masks secrets in what it prints, errors included, unless told not to.
  if ('show-secrets' in command.flags && !rest.includes('--show-secrets')) io = (await import('./secret-masking.js')).maskedIO(io);
  try {
    // Discovery, detection and reading all see one picture of each SQLite store, read from disk once.
    const { withStoreSnapshots } = await import('../sqlite/snapshot-scope.js');
    return await withStoreSnapshots(() => command.run(rest, io));
  } catch (err) {
    // A system error no write boundary named (a mkdir, an rm) is still an E_IO with its call and path, never a stack.
    if (TcompactError.isInstance(err) || isSystemError(err)) {
      const { code, message } = errorInfoOf(err);
      io.stderr.write(`tcompact ${name}: ${code}: ${message}\n`);
      return exitCodeOf(code);
    }
    io.stderr.write(`tcompact ${name}: internal error\n${(err as Error).stack ?? String(err)}\n`);
    return EXIT.INTERNAL;
  }
}

function exitCodeOf(code: ErrorCode): number {
  if (code === 'E_RESUME') return EXIT.RESUME_REFUSED;
  if (code === 'E_USAGE' || code === 'E_CONFIG' || code === 'E_QUEUE') return EXIT.USAGE;
  if (code === 'E_IO') return EXIT.IO_ERROR;
  return EXIT.INPUT_ERRORS;
}
