import { readFileSync } from 'node:fs';
import { TcompactError } from '../errors.js';
import { parseConfig } from '../model/parse.js';
import { type PriceTable, PriceTableSchema } from '../provider/model-prices.js';

/**
 * `--prices FILE`: list prices by model, in the built-in table's schema (provider/model-prices.ts). Unreadable,
 * malformed or invalid files are E_CONFIG errors naming the file, e.g.
 * `prices.json: claude-opus-4-5.input: Invalid input: expected number, received string`.
 */
export function readPriceFile(path: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TcompactError('E_CONFIG', `${path}: cannot read the price file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TcompactError('E_CONFIG', `${path}: not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(PriceTableSchema, value, { source: path });
}
