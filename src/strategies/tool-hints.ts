import * as z from 'zod';

/**
 * How to read a tool's line range from its arguments, for `dedup-tools` subsumption. Lines are 1-based and inclusive.
 * A call without the start argument starts at line 1; without an end or length it reads to the end of the file, and
 * so covers every range of that path.
 */
const RangeRuleSchema = z.strictObject({
  /** Argument holding the file path. */
  path: z.string(),
  /** Argument holding the first line. */
  start: z.string().optional(),
  /** Argument holding the last line (inclusive). Use either `end` or `length`. */
  end: z.string().optional(),
  /** Argument holding the number of lines read from `start` (Claude Code `Read.limit`). */
  length: z.string().optional(),
});
export type RangeRule = z.infer<typeof RangeRuleSchema>;

/** What tcompact knows about one tool, by name. Set in the config file under `toolHints`; merged over the defaults. */
const ToolHintSchema = z.strictObject({
  /** `strip-tool-results`: keep the result, strip it to a one-line summary, or remove call and result. */
  response: z.enum(['keep', 'strip', 'remove']).optional(),
  /** `dedup-tools`: an earlier call with identical arguments (or one this tool's range rule covers) is removed. */
  dedup: z.boolean().optional(),
  /** `dedup-tools`: line-range subsumption rule. */
  range: RangeRuleSchema.optional(),
  /**
   * `dedup-tools`: calls of these tools between two calls break coverage (the state may have changed). For tools with
   * a range rule, only calls that modify the same path count.
   */
  invalidatedBy: z.array(z.string()).optional(),
  /** `mask-observations`: never masked. */
  maskExempt: z.boolean().optional(),
});
type ToolHint = z.infer<typeof ToolHintSchema>;
export const ToolHintsSchema = z.record(z.string(), ToolHintSchema);
export type ToolHints = Record<string, ToolHint>;

const FILE_WRITERS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'write_file', 'edit_file', 'str_replace_editor', 'apply_patch', 'create_file'];

/** tau-bench airline tools that change reservations, seats or a user's certificates. */
const AIRLINE_WRITERS = [
  'book_reservation',
  'cancel_reservation',
  'update_reservation_flights',
  'update_reservation_baggages',
  'update_reservation_passengers',
  'send_certificate',
];
const AIRLINE_BOOKINGS = ['book_reservation', 'cancel_reservation', 'update_reservation_flights'];

/** Defaults: the read-only tools seen in the real datasets dedup; todo/task/plan tools are never masked. */
export const DEFAULT_TOOL_HINTS: Readonly<ToolHints> = {
  Read: { dedup: true, range: { path: 'file_path', start: 'offset', length: 'limit' }, invalidatedBy: FILE_WRITERS },
  read_file: { dedup: true, range: { path: 'path', start: 'start_line', end: 'end_line' }, invalidatedBy: FILE_WRITERS },
  fs_read_file: { dedup: true, range: { path: 'path', start: 'start_line', end: 'end_line' }, invalidatedBy: FILE_WRITERS },
  Glob: { dedup: true, invalidatedBy: FILE_WRITERS },
  Grep: { dedup: true, invalidatedBy: FILE_WRITERS },
  LS: { dedup: true, invalidatedBy: FILE_WRITERS },
  list_files: { dedup: true, invalidatedBy: FILE_WRITERS },
  list_dir: { dedup: true, invalidatedBy: FILE_WRITERS },
  get_reservation_details: { dedup: true, invalidatedBy: AIRLINE_WRITERS },
  get_user_details: { dedup: true, invalidatedBy: AIRLINE_WRITERS },
  search_direct_flight: { dedup: true, invalidatedBy: AIRLINE_BOOKINGS },
  search_onestop_flight: { dedup: true, invalidatedBy: AIRLINE_BOOKINGS },
  list_all_airports: { dedup: true },
  TodoWrite: { maskExempt: true, response: 'keep' },
  TodoRead: { maskExempt: true, response: 'keep' },
  todo_write: { maskExempt: true, response: 'keep' },
  update_plan: { maskExempt: true, response: 'keep' },
  Task: { maskExempt: true },
  LoadSkill: { maskExempt: true },
  Skill: { maskExempt: true },
  Ask: { maskExempt: true },
  AskUserQuestion: { maskExempt: true },
  ExitPlanMode: { maskExempt: true },
};

/** The defaults with user hints merged over them, field by field. */
export function mergeToolHints(user: ToolHints | undefined): ToolHints {
  const out: ToolHints = { ...DEFAULT_TOOL_HINTS };
  for (const [name, hint] of Object.entries(user ?? {})) out[name] = { ...out[name], ...hint };
  return out;
}
