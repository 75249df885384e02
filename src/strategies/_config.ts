import * as z from 'zod';
import { DEFAULT_KEEP_MESSAGES, DEFAULT_KEEP_RESULTS } from './boundaries.js';
import { ToolHintsSchema, mergeToolHints } from './tool-hints.js';

/**
 * The boundary fields of every strategy that only touches the middle of a transcript. `buildSteps` fills them from the
 * top level of the config (`keepLast`, `keepFirst`, `keepMessages`, `keepResults`); a strategy's own options override
 * them. The protected tail is a budget (see `protectedRange`): the last request always stays verbatim, and the older
 * part of the current turn may be compacted.
 */
export const BoundaryFields = {
  /** Last whole turns never modified (a turn starts at a user message). @default 0 */
  keepLast: z.number().int().min(0).default(0),
  /** Leading messages never modified. @default the leading system/developer messages and the first user message */
  keepFirst: z.number().int().min(0).optional(),
  /** Last messages never modified (goose keeps 10). @default 10 */
  keepMessages: z.number().int().min(0).default(DEFAULT_KEEP_MESSAGES),
  /** Last tool results never modified, with their calls (J-CLI keeps 10). @default 10 */
  keepResults: z.number().int().min(0).default(DEFAULT_KEEP_RESULTS),
};

/**
 * Tool hints, always merged over the defaults, so a strategy applied with `{}` sees `DEFAULT_TOOL_HINTS` and hints that
 * arrive already merged (from `buildSteps`) come out the same.
 */
export const ToolHintsField = {
  /** Per-tool hints merged over the defaults (see tool-hints.ts). @default DEFAULT_TOOL_HINTS */
  toolHints: ToolHintsSchema.optional().transform((hints) => mergeToolHints(hints)),
};
