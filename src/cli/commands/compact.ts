import { defineCommand, requireInputs } from '../command.js';
import { LLM_FLAGS } from '../llm-flags.js';
import { COMPACTION_FLAGS } from '../compaction-flags.js';
import { text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { READ_FLAGS } from '../input-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

export const FLAGS = {
  out: valueFlag({ valueName: 'FILE.jsonl', description: 'the compacted archive (required unless --dry-run)', parse: text }),
  ...COMPACTION_FLAGS,
  'dry-run': booleanFlag({ description: 'compact and print the report, write nothing' }),
  ...READ_FLAGS,
  ...SECRET_FLAGS,
  ...LLM_FLAGS,
};

export const compactCommand = defineCommand({
  name: 'compact',
  usage: 'Usage: tcompact compact <input...> --out FILE.jsonl [options]',
  description: `Runs every transcript through the strategies (default: the "auto" pipeline; "sanitize" always runs first and
last) and writes, next to FILE.jsonl: FILE.refs.jsonl (the side store that \`restore\` reads), FILE.errors.jsonl
(input lines that failed), FILE.report.json, FILE.report.md and FILE.report.html (a self-contained page with charts). Every file is written under a temporary name
and renamed into place when complete. Prints tokens saved per strategy.`,
  flags: FLAGS,
  positionals: requireInputs('compact'),
  notes: { llm: '(up to --llm-concurrency transcripts are summarized at once; the output keeps the input order)' },
  epilogue: 'Exit codes: 0 ok, 1 some input failed (see FILE.errors.jsonl), 2 usage or config error, 74 a file could not be\nread or written (E_IO).',
  run: async (args, io) => (await import('../actions/compact.js')).compactAction(args, io),
});
