import type { ErrorRecord } from '../errors.js';
import type { Transcript } from '../model/transcript.js';

export const FORMAT_NAMES = [
  'openai',
  'messages',
  'claude-code',
  'anthropic',
  'swe-agent',
  'openhands',
  'codex',
  'gemini',
  'gemini-checkpoint',
  'cline',
  'cline-sdk',
  'opencode',
  'opencode-db',
  'goose',
  'goose-db',
  'aider',
  'qwen',
  'continue',
  'pi',
  'openclaw',
  'amp',
  'kimi',
  'kimi-code',
  'droid',
  'copilot',
  'crush',
  'zed',
  'hermes',
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Where an item came from: the line that holds it (for whole-file formats, line 1 at offset 0). */
export interface SourcePosition {
  file: string;
  line: number;
  byteOffset: number;
  /** For whole-file JSON arrays (tau-bench runs, OpenHands events): the 0-based index of the array element. */
  record?: number;
}

/**
 * What reading an input yields, one item per input line or record, so that every line is accounted for exactly once:
 * a transcript (which may account for several lines, `lines`), an error, or a skipped line (blank, or a record that is
 * not conversation, counted by `reason`).
 *
 * The unit of accounting is the line for JSONL inputs. For whole-file JSON it is the record: the whole file when it
 * holds one object (SWE-agent `.traj`, one Anthropic conversation), each element when it holds an array (tau-bench
 * runs, OpenHands events). Summing `lines` over transcripts and errors (default 1) plus one per skipped item gives the
 * number of units in the input.
 */
export type InputItem =
  | (SourcePosition & {
      kind: 'transcript';
      transcript: Transcript;
      /** The format its file was read as (set by readInputs), for reports that compare agents. */
      format?: FormatName;
      /** How many input lines this transcript accounts for (1 for an archive line). */
      lines: number;
      warnings: string[];
      /** Structural repairs the adapter made, by kind (e.g. `missingResultFilled`). */
      repairs: Record<string, number>;
      /**
       * The line's own UTF-8 bytes when the item is one line of a canonical archive (without a BOM or `\r`), as read: a
       * transcript that comes through compaction unchanged is written out as these bytes, not serialized again, and the
       * side store keeps them as the input of a compaction without encoding it again. Not its decoded text: held
       * while the transcript is compacted, that text (two bytes per character) outlived the young generation's
       * collections and was promoted, to be freed only by a full one.
       */
      sourceBytes?: Uint8Array;
    })
  | {
      kind: 'error';
      record: ErrorRecord;
      /** How many input units the error covers when more than one (a whole file of unknown format). @default 1 */
      lines?: number;
    }
  | (SourcePosition & {
      kind: 'skipped';
      /** `blank`, or `record:<type>` / `record:<type>/<subtype>` for a record that is not conversation. */
      reason: string;
    });

export interface ReadOptions {
  maxLineBytes: number;
  /**
   * How the file holds its records: `jsonl` (one per line) or `json` (one document). Detection sets it; when absent,
   * a `.jsonl` name means `jsonl` and anything else `json`.
   */
  layout?: 'jsonl' | 'json';
  /**
   * For a SQLite store named here, the ids of the only sessions to read (discovery's selection by `--since`, `--until`
   * and `--project`); the store's other sessions are not inputs. A store not named here is read whole.
   */
  sessions?: Readonly<Record<string, readonly string[]>>;
}
