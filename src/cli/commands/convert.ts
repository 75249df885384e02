import { FORMAT_NAMES } from '../../formats/types.js';
import { defineCommand } from '../command.js';
import { oneOf, text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { READ_FLAGS } from '../input-flags.js';
import { SOURCE_FLAGS } from '../source-flags.js';

const OUTPUT_FORMATS = ['openai', 'anthropic'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const FLAGS = {
  out: valueFlag({ valueName: 'FILE', description: 'output archive', parse: text, required: 'see help' }),
  to: valueFlag({
    valueName: 'FORMAT',
    description: 'openai (the canonical OpenAI chat archive) or anthropic (Messages API shape)',
    parse: oneOf(OUTPUT_FORMATS),
    default: 'openai',
  }),
  from: READ_FLAGS.from,
  json: booleanFlag({ description: 'print the summary as JSON' }),
  'max-line-bytes': { ...READ_FLAGS['max-line-bytes'], description: 'reject longer lines (or whole-file JSON records) with E_LINE_TOO_LONG' },
  ...SOURCE_FLAGS,
};

export const convertCommand = defineCommand({
  name: 'convert',
  usage: 'Usage: tcompact convert [input...] --out FILE.jsonl [options]',
  description: `Reads files or directories (walked recursively; only .jsonl, .json and .traj files and aider chat histories), detects
each file's format and writes one transcript per line to FILE.jsonl, atomically. Formats:
  ${FORMAT_NAMES.join(', ')}. Bad lines and records go to FILE.errors.jsonl ({file, line, byteOffset, code, message}); the
rest is still converted. Prints transcripts, messages, repairs, skipped records by reason and errors by code.
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read.`,
  flags: FLAGS,
  epilogue: 'Exit codes: 0 everything converted, 1 some input failed (see FILE.errors.jsonl), 2 usage error, 74 the output could\nnot be written (E_IO).',
  run: async (args, io) => (await import('../actions/convert.js')).convertAction(args, io),
});
