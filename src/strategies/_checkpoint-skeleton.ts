import type { CheckpointFacts } from './_checkpoint-facts.js';
import { SALIENCE_WEIGHTS, salienceOf } from './_checkpoint-salience.js';
import { type Section, commandLine, fileActions, fitSections, shortPath } from './checkpoint.js';

/** One line of the skeleton and the text a summary must hold to keep its fact (a path, a command, an error line). */
interface SkeletonLine {
  line: string;
  keys: string[];
}

/**
 * The checkpoint's salient lists of a span, for the LLM summary to build on: the files touched, the commands run, the
 * unresolved errors and the open tasks, in `budget` characters, each list cut to its most salient items as the
 * checkpoint cuts it. `lines` are the items it holds, with what a summary must hold to keep each one.
 */
export interface CheckpointSkeleton {
  text: string;
  lines: SkeletonLine[];
}

export function checkpointSkeleton(facts: CheckpointFacts, budget: number, root?: string): CheckpointSkeleton {
  const salience = salienceOf(facts, SALIENCE_WEIGHTS);
  const relative = root !== undefined && facts.files.some((f) => shortPath(f.path, root) !== f.path);
  const keyed = new Map<string, string[]>();
  const item = (line: string, keys: string[]) => {
    keyed.set(line, keys);
    return line;
  };
  const files: Section = {
    title: relative ? `Files touched (paths relative to ${root}):` : 'Files touched:',
    items: facts.files.map((f) => {
      const path = relative ? shortPath(f.path, root) : f.path;
      return item(`- ${path} (${fileActions(f)})`, [path]);
    }),
    salience: salience.files,
    weight: 2,
  };
  const unresolved = facts.errors.map((e, i) => ({ e, i })).filter(({ e }) => !e.resolved);
  const errors: Section = {
    title: 'Unresolved errors:',
    items: unresolved.map(({ e }) => item(`- ${e.what}: ${e.message}${e.at === undefined ? '' : ` (at ${e.at})`}`, [e.message])),
    salience: unresolved.map(({ i }) => salience.errors[i]),
    weight: 2,
  };
  const commands: Section = {
    title: 'Commands run (distinct; outcome of the last run):',
    items: facts.commands.map((c) => item(commandLine(c), [c.command])),
    salience: salience.commands,
    weight: 3,
  };
  const todos: Section = { title: 'Open tasks:', items: facts.openTodos.map((t) => item(`- [${t.status}] ${t.content}`, [t.content])), weight: 1 };
  const sections = [files, errors, commands, todos];
  const fitted = fitSections(sections, budget);
  const text = sections
    .map((s) => fitted.get(s)?.trimEnd())
    .filter((s) => s !== undefined)
    .join('\n\n');
  // A line clipped to fit is not in the map: its fact is only partly there, so no summary is held to it.
  const lines = text
    .split('\n')
    .map((line) => ({ line, keys: keyed.get(line) }))
    .filter((l): l is SkeletonLine => l.keys !== undefined);
  return { text, lines };
}

/** The skeleton's lines whose facts `summary` does not hold, verbatim. */
export function missingFrom(summary: string, skeleton: CheckpointSkeleton): string[] {
  return skeleton.lines.filter((l) => l.keys.some((k) => !summary.includes(k))).map((l) => l.line);
}
