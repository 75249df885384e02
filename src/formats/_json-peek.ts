import { Readable } from 'node:stream';
import { decodeUtf8Strict } from './_json-stream.js';

/** What the first record of a whole-file JSON document looks like: enough to recognise its format. */
export interface JsonSignature {
  /** The document's top level. */
  root: 'object' | 'array' | 'scalar' | 'empty';
  /** The first record: the root object itself, or the first element of the root array. */
  first: 'object' | 'array' | 'scalar' | 'none';
  /** Keys of the first record when it is an object, in order. */
  keys: string[];
  /** Every key seen anywhere in the first record. */
  allKeys: Set<string>;
  /** String values of `type` keys anywhere in the first record. */
  types: Set<string>;
  /** String values of `role` keys anywhere in the first record. */
  roles: Set<string>;
}

interface Token {
  name: string;
  value?: string;
}

/** Stop looking after this many tokens: a first record this large still tells its format by its first keys. */
const MAX_TOKENS = 200_000;

/**
 * Reads a JSON document only as far as the end of its first record, token by token, never the whole file. Throws a
 * TcompactError (E_UTF8) or the parser's error when the start of the document is not JSON.
 */
export async function peekJson(file: string): Promise<JsonSignature> {
  const sig: JsonSignature = { root: 'empty', first: 'none', keys: [], allKeys: new Set(), types: new Set(), roles: new Set() };
  // stream-json is loaded by the first whole-file JSON input: a run of JSON Lines files never needs it.
  const { default: Parser } = await import('stream-json/Parser.js');
  const parser = new Parser({ streamValues: false });
  const source = Readable.from(decodeUtf8Strict(file));
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  const stack: ('o' | 'a')[] = [];
  let recordDepth = -1; // stack length inside the first record's container
  let pendingKey: string | undefined;
  let tokens = 0;
  try {
    for await (const token of parser as AsyncIterable<Token>) {
      if (++tokens > MAX_TOKENS) break;
      const opens = token.name === 'startObject' || token.name === 'startArray';
      const isValue = opens || /Value$/.test(token.name);
      if (stack.length === 0 && isValue) {
        sig.root = token.name === 'startObject' ? 'object' : token.name === 'startArray' ? 'array' : 'scalar';
        if (sig.root === 'object') {
          sig.first = 'object';
          recordDepth = 1;
        }
        if (!opens) break;
      } else if (sig.root === 'array' && stack.length === 1 && isValue && sig.first === 'none') {
        sig.first = token.name === 'startObject' ? 'object' : token.name === 'startArray' ? 'array' : 'scalar';
        recordDepth = 2;
        if (!opens) break;
      }
      if (token.name === 'keyValue' && token.value !== undefined) {
        if (stack.length === recordDepth && sig.first === 'object') sig.keys.push(token.value);
        sig.allKeys.add(token.value);
        pendingKey = token.value;
        continue;
      }
      if (token.name === 'stringValue' && token.value !== undefined) {
        if (pendingKey === 'type') sig.types.add(token.value);
        if (pendingKey === 'role') sig.roles.add(token.value);
      }
      pendingKey = undefined;
      if (opens) stack.push(token.name === 'startObject' ? 'o' : 'a');
      else if (token.name === 'endObject' || token.name === 'endArray') {
        stack.pop();
        if (stack.length === recordDepth - 1) break;
      }
    }
  } finally {
    source.destroy();
    parser.destroy();
  }
  return sig;
}
