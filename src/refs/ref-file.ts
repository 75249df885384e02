import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The side store on disk: `refs.jsonl` next to the output, one `{"ref": "<16 hex>", "data": "<text>"}` per line, each
 * ref once (the run merge may repeat one it no longer remembers), in the order refs first appear in the output.
 */
export const REFS_FILE = 'refs.jsonl';

export function formatRefLine(ref: string, data: string): string {
  return `${JSON.stringify({ ref, data })}\n`;
}

export async function readRefFile(path: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const { ref, data } = JSON.parse(line) as { ref: string; data: string };
    refs.set(ref, data);
  }
  return refs;
}
