// The secret scan alone, on one core: tcompact's scanner (secretlint's recommended rules and tcompact's, from the
// compiled dist/; needs `npm run build`) over every text field of every transcript, the fields the tokenize-only
// baseline reads. Only the scanning is timed (scanMs); reading and JSON.parse are not.
// `secret-scan.mjs FILE`. Prints {"lines", "texts", "chars", "secrets", "scanMs"}.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const { findSecrets } = await import(new URL('../../dist/src/secrets/detector.js', import.meta.url).href);

function textsOf(transcript, out) {
  for (const m of transcript.messages ?? []) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content) out.push(p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : '');
    if (typeof m.reasoning_content === 'string') out.push(m.reasoning_content);
    for (const c of m.tool_calls ?? []) out.push(c.function.name, c.function.arguments);
  }
}

let lines = 0;
let texts = 0;
let chars = 0;
let secrets = 0;
let scanMs = 0;
for await (const line of createInterface({ input: createReadStream(process.argv[2], { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
  if (line === '') continue;
  const batch = [];
  textsOf(JSON.parse(line), batch);
  const started = performance.now();
  for (const t of batch) secrets += findSecrets(t).length;
  scanMs += performance.now() - started;
  for (const t of batch) chars += t.length;
  texts += batch.length;
  lines++;
}
process.stdout.write(JSON.stringify({ lines, texts, chars, secrets, scanMs }));
