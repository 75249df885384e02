import { TcompactError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { text } from '../flag-values.js';
import { valueFlag } from '../flags.js';
import { READ_FLAGS } from '../input-flags.js';

export const FLAGS = {
  out: valueFlag({
    valueName: 'FILE',
    description: 'where the restored archive goes (written under a temporary name, then renamed)',
    parse: text,
    required: true,
  }),
  'max-line-bytes': { ...READ_FLAGS['max-line-bytes'], description: 'reject longer lines with E_LINE_TOO_LONG' },
};

export const restoreCommand = defineCommand({
  name: 'restore',
  usage: 'Usage: tcompact restore <dir-or-file> --out FILE',
  description: `Undoes every compaction recorded in each transcript's metadata.tcompact.restore, using the side store, and writes
the transcripts exactly as they were read before compaction (canonical JSON, one per line, in archive order).
Transcripts that were not changed are written as they are.

<dir-or-file> is either a 'tcompact run' output directory (transcripts.jsonl and refs.jsonl inside) or a
'tcompact compact' output file FILE.jsonl (with FILE.refs.jsonl next to it).`,
  flags: FLAGS,
  positionals: (positionals) => {
    if (positionals.length !== 1) throw new TcompactError('E_USAGE', 'restore: give exactly one compacted archive (a directory or FILE.jsonl)');
  },
  epilogue: `A transcript whose side-store entries are missing or altered is reported as E_REF with its id and left out of the
output; the others are still restored. Exit codes: 0 ok, 1 some transcripts could not be restored, 2 usage error,
74 a file could not be read or written (E_IO).`,
  run: async (args, io) => (await import('../actions/restore.js')).restoreAction(args, io),
});
