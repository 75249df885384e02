// Baselines (b) and (c): an exact tokenizer alone, on one core, counting every text field of every transcript (the
// fields tcompact counts: message text and refusals, reasoning, tool-call names and arguments, unknown-role messages
// and tool definitions as JSON), with no cache: each occurrence is counted. Only the counting is timed (countMs);
// reading and JSON.parse are not. `tokenize-only.mjs FILE [gpt-tokenizer|tcompact|ai-tokenizer]`: (b) is gpt-tokenizer, (c) the
// engine tcompact uses by default (needs `npm run build`). Prints {"lines", "texts", "tokens", "countMs"}.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const engine = process.argv[3] ?? 'gpt-tokenizer';
let countTokens;
if (engine === 'gpt-tokenizer') {
  const gpt = require('gpt-tokenizer/cjs/encoding/o200k_base');
  countTokens = (text, options) => gpt.countTokens(text, options);
} else if (engine === 'tcompact' || engine === 'ai-tokenizer') {
  // Built exactly as tcompact builds it, from the compiled dist/.
  const { bpeCounter } = await import(new URL('../../dist/src/tokens/bpe-engines.js', import.meta.url).href);
  countTokens = bpeCounter('o200k_base', engine);
} else {
  throw new Error(`unknown engine ${engine}`);
}

const KNOWN = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const options = { disallowedSpecial: new Set() };

function textsOf(transcript, out) {
  for (const m of transcript.messages ?? []) {
    if (!KNOWN.has(m.role)) {
      out.push(JSON.stringify(m));
      continue;
    }
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content) out.push(p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : '');
    if (typeof m.refusal === 'string') out.push(m.refusal);
    if (typeof m.reasoning_content === 'string') out.push(m.reasoning_content);
    for (const c of m.tool_calls ?? []) out.push(c.function.name, c.function.arguments);
  }
  if (Array.isArray(transcript.tools) && transcript.tools.length > 0) out.push(JSON.stringify(transcript.tools));
}

let lines = 0;
let texts = 0;
let tokens = 0;
let countMs = 0;
for await (const line of createInterface({ input: createReadStream(process.argv[2], { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
  if (line === '') continue;
  const batch = [];
  textsOf(JSON.parse(line), batch);
  const started = performance.now();
  for (const t of batch) if (t !== '') tokens += countTokens(t, options);
  countMs += performance.now() - started;
  texts += batch.length;
  lines++;
}
process.stdout.write(JSON.stringify({ lines, texts, tokens, countMs }));
