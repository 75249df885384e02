import { z } from 'zod';
import { ToolHintsSchema, mergeToolHints } from './tool-hints.js';

/**
 * The boundary fields of every strategy that only touches the middle of a transcript. `buildSteps` fills them from the
 * top level of the config (`keepLast`, `keepFirst`); a strategy's own options override them.
 */
export const BoundaryFields = {
  /** Last turns never modified (a turn starts at a user message). @default 1 */
  keepLast: z.number().int().min(0).default(1),
  /** Leading messages never modified. @default the leading system/developer messages and the first user message */
  keepFirst: z.number().int().min(0).optional(),
};

/**
 * Tool hints, always merged over the defaults, so a strategy applied with `{}` sees `DEFAULT_TOOL_HINTS` and hints that
 * arrive already merged (from `buildSteps`) come out the same.
 */
export const ToolHintsField = {
  /** Per-tool hints merged over the defaults (see tool-hints.ts). @default DEFAULT_TOOL_HINTS */
  toolHints: ToolHintsSchema.optional().transform((hints) => mergeToolHints(hints)),
};
