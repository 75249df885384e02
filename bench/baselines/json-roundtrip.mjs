// Baseline (a): the practical limit of one core for a JSONL pass: readline, JSON.parse and JSON.stringify per line, the
// output written to a file. Prints {"lines": N}.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const [input, output] = process.argv.slice(2);
const out = createWriteStream(output);
let lines = 0;
for await (const line of createInterface({ input: createReadStream(input, { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
  if (line === '') continue;
  if (!out.write(`${JSON.stringify(JSON.parse(line))}\n`)) await once(out, 'drain');
  lines++;
}
out.end();
await once(out, 'finish');
process.stdout.write(JSON.stringify({ lines }));
