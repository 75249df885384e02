import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** The first `max` non-empty lines of a text file, each cut to `width` characters; none when the file is missing. */
export async function headLines(path: string, max: number, width = 400): Promise<string[]> {
  const lines: string[] = [];
  const stream = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of reader) {
      if (line === '') continue;
      lines.push(line.length > width ? `${line.slice(0, width - 1)}…` : line);
      if (lines.length >= max) break;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  } finally {
    reader.close();
    stream.destroy();
  }
  return lines;
}
