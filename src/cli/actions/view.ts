import { writeViews } from '../../view/write-views.js';
import { EXIT } from '../exit-codes.js';
import { maskedLine, maskerFromFlags } from '../secret-masking.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/view.js';

/** What 'tcompact view' does with its parsed flags; loaded only when the command runs. */
export async function viewAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const masker = maskerFromFlags(values);
  const result = await writeViews({
    masker,
    runDir: positionals[0],
    ...(values.id && { ids: values.id }),
    ...(values.eval !== undefined && { evalDir: values.eval }),
    ...(values.out !== undefined && { outDir: values.out }),
  });
  const shown = (line: string): string => masker.text(line);
  for (const id of result.missing) io.stderr.write(shown(`view: transcript "${id}" is not in ${positionals[0]}/transcripts.jsonl\n`));
  for (const f of result.failed) io.stderr.write(shown(`view: ${f.code}: ${f.message}\n`));
  for (const id of result.repeated) io.stderr.write(shown(`view: transcript "${id}" is on several lines; its page shows the first\n`));
  io.stdout.write(maskedLine(masker));
  io.stdout.write(
    `view: ${result.pages.length} page${result.pages.length === 1 ? '' : 's'} in ${result.outDir}` +
      `${result.runPage === undefined ? '' : `; ${result.runPage} links to them`}\n`,
  );
  return result.missing.length + result.failed.length > 0 ? EXIT.INPUT_ERRORS : EXIT.OK;
}
