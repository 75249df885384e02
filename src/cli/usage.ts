import type { Flag, FlagSection, FlagTable } from './flags.js';

/** What a command's help says besides its flags. */
export interface HelpText {
  /** The `Usage: tcompact NAME ...` line(s). */
  usage: string;
  /** The paragraphs between the usage and the options. */
  description: string;
  /** Lines printed under a section's flags, by section id (`options` for "Options:"). */
  notes?: Readonly<Record<string, string>>;
  /** The paragraphs after every flag: exit codes, signals. */
  epilogue?: string;
}

const OPTIONS: FlagSection = { id: 'options', heading: 'Options:' };
/** Descriptions start in this column; longer flag names push them one space after. */
const DESCRIPTION_COLUMN = 25;
/** Description lines longer than this wrap at a space. */
const WIDTH = 120;

/** A command's help: usage, description, then each section of the table with its flags in table order. */
export function renderHelp(text: HelpText, flags: FlagTable): string {
  const sections = new Map<string, { section: FlagSection; lines: string[] }>([[OPTIONS.id, { section: OPTIONS, lines: [] }]]);
  for (const [name, flag] of Object.entries(flags)) {
    const section = flag.section ?? OPTIONS;
    const entry = sections.get(section.id) ?? { section, lines: [] };
    sections.set(section.id, entry);
    entry.lines.push(..._flagLines(name, flag));
  }
  const blocks = [text.usage, text.description];
  for (const { section, lines } of sections.values()) {
    if (lines.length === 0) continue;
    const note = text.notes?.[section.id];
    blocks.push([section.heading, ...lines, ...(note === undefined ? [] : note.split('\n').map((l) => `  ${l}`))].join('\n'));
  }
  if (text.epilogue !== undefined) blocks.push(text.epilogue);
  return blocks.join('\n\n');
}

/** `  --name VALUE   description`, continued under the description column, with the default or "(required)" last. */
function _flagLines(name: string, flag: Flag): string[] {
  const head = `  --${name}${flag.kind === 'boolean' ? '' : ` ${flag.valueName}`}`;
  const width = WIDTH - DESCRIPTION_COLUMN;
  const suffix = _suffix(flag);
  // A default that fits on a line is never cut: it goes on a line of its own when the last one has no room for it.
  const lines = flag.description.split('\n').flatMap((line) => _wrap(line, width));
  const last = lines.length - 1;
  if (suffix !== undefined && lines[last].length + 1 + suffix.length <= width) lines[last] += ` ${suffix}`;
  else if (suffix !== undefined && suffix.length <= width) lines.push(suffix);
  else if (suffix !== undefined) lines.splice(last, 1, ..._wrap(`${lines[last]} ${suffix}`, width));
  const indent = ' '.repeat(DESCRIPTION_COLUMN);
  return lines.map((line, i) => (i === 0 ? `${head.padEnd(DESCRIPTION_COLUMN - 1)} ${line}` : `${indent}${line}`));
}

function _suffix(flag: Flag): string | undefined {
  if (flag.kind === 'value' && flag.required !== undefined) return '(required)';
  const shown = flag.kind === 'boolean' ? flag.shownDefault : (flag.shownDefault ?? flag.default);
  if (shown === undefined) return undefined;
  if (typeof shown === 'number') return `(default ${shown})`;
  return `(default: ${Array.isArray(shown) ? shown.join(', ') : String(shown)})`;
}

/** The line cut at spaces into pieces of at most `width` characters (a longer word stays whole). */
function _wrap(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    if (cut <= 0) break;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  out.push(rest);
  return out;
}
