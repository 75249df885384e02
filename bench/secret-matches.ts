/**
 * What the secret scan masks in an archive, for looking at by eye: `npx tsx bench/secret-matches.ts DIR...` reads every
 * transcript under the folders (any format tcompact reads), masks it as a shared output would (every string, keys
 * included), and prints the count by kind, then each match with 40 characters either side. docs/secrets.md gives the
 * figures on the shared corpus.
 *
 * `--beside-id` puts a made-up AWS access key id before every string first: an AWS secret key is found only near an
 * id, and the corpus holds none, so this is what shows whether the pairing rule would mask ordinary 40-character runs
 * (hashes, identifiers, paths) in a text that names an id.
 */
import { readInputs } from '../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../src/io/line-reader.js';
import { findSecrets } from '../src/secrets/detector.js';

const besideId = process.argv.includes('--beside-id');
const inputs = process.argv.slice(2).filter((a) => a !== '--beside-id');
/** Built from parts so that no file of the repository holds a string shaped like an access key id. */
const MADE_UP_ID = ['AK', 'IA', 'Q2WERTY7UIOPASDF'].join('');
const counts: Record<string, number> = {};
const samples: string[] = [];
let transcripts = 0;
let strings = 0;

function visit(value: unknown, where: string): void {
  if (typeof value === 'string') {
    strings++;
    const text = besideId ? `${MADE_UP_ID} ${value}` : value;
    for (const m of findSecrets(text)) {
      if (besideId && text.slice(m.start, m.end) === MADE_UP_ID) continue;
      counts[m.kind] = (counts[m.kind] ?? 0) + 1;
      const around = `${text.slice(Math.max(0, m.start - 40), m.start)}«${text.slice(m.start, m.end)}»${text.slice(m.end, m.end + 40)}`;
      samples.push(`${m.kind}\t${where}\t${JSON.stringify(around)}`);
    }
    return;
  }
  if (Array.isArray(value)) value.forEach((v) => visit(v, where));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      visit(k, where);
      visit(v, where);
    }
  }
}

for await (const item of readInputs(inputs, { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
  if (item.kind !== 'transcript') continue;
  transcripts++;
  visit(item.transcript, `${item.file}:${item.line}`);
}
process.stdout.write(
  `${transcripts} transcripts, ${strings} strings${besideId ? ', each after an access key id' : ''}; masks by kind: ${JSON.stringify(counts)}\n`,
);
for (const s of samples) process.stdout.write(`${s}\n`);
