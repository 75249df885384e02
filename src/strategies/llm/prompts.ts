import * as z from 'zod';
import { onFirstUse } from '../../on-first-use.js';

/**
 * Version of the prompts and of the answer parsing. Part of every cache key: change it whenever a prompt or a parser
 * changes, so that no cached answer made for an older prompt is reused.
 */
export const PROMPT_VERSION = 'tcompact-summary-1';

/** The sections every summary must have, in this order, each as a `## ` heading. */
export const SUMMARY_SECTIONS = [
  { title: 'Goals and constraints', ask: "the user's goals and every constraint or preference they stated" },
  { title: 'Timeline and decisions', ask: 'what happened, in order, and each decision taken with its reason' },
  { title: 'Technical context', ask: 'languages, frameworks, commands, environment facts the work depends on' },
  { title: 'Files and code changes', ask: 'every file read, created or modified, with its full path and what changed' },
  { title: 'Errors and fixes', ask: 'each error met and how it was fixed, or that it is still open' },
  { title: 'All user messages', ask: "every user message of this part, verbatim, in order, each on a line starting with '- '" },
  { title: 'Pending tasks', ask: 'what the user asked for that is not done yet' },
  { title: 'Current work', ask: 'what was being done right at the end of this part' },
  { title: 'Next step', ask: 'the single next step, in line with the latest user request' },
] as const;

type SummarySectionTitle = (typeof SUMMARY_SECTIONS)[number]['title'];

export function summarySystemPrompt(focus: string | undefined): string {
  const sections = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ## ${s.title} — ${s.ask}`).join('\n');
  const lines = [
    "You compact the record of an AI agent's working session so that the agent can continue the work from your summary alone.",
    'You are shown a part of the session. Write a summary of that part with exactly these sections, as Markdown level-2 headings with these exact titles, in this order:',
    sections,
    'Rules: be concise but never drop a fact the agent needs to continue; keep full file paths, commands, identifiers and error messages exactly; do not invent anything; write "None." under a section with nothing to report; answer with the summary only.',
  ];
  if (focus && focus.trim() !== '') lines.push(`Pay particular attention to: ${focus.trim()}`);
  return lines.join('\n\n');
}

export interface SpanPosition {
  /** 0-based index of the first summarized message in the transcript. */
  from: number;
  /** 0-based index one past the last summarized message. */
  to: number;
  total: number;
  /** 1-based chunk number and count when the span is summarized in several parts. */
  part?: { index: number; count: number };
}

/**
 * The user prompt: the messages to summarize and, when given, the checkpoint's salient lists of them (files, commands,
 * unresolved errors, open tasks), which the summary is asked to keep verbatim: the model writes the prose, the lists
 * carry what a deterministic reading found the agent most likely to need again.
 */
export function summaryUserPrompt(rendered: string, at: SpanPosition, skeleton?: string): string {
  const part = at.part ? ` This is part ${at.part.index} of ${at.part.count} of that span, in order.` : '';
  const lines = [
    `Summarize messages #${at.from} to #${at.to - 1} of a session of ${at.total} messages.${part} The messages before and after them are kept verbatim and are not shown.`,
    '<transcript>',
    rendered,
    '</transcript>',
  ];
  if (skeleton !== undefined && skeleton.trim() !== '')
    lines.push(
      'A deterministic checkpoint of these messages lists the files, commands, errors and open tasks the agent is most likely to need again:',
      '<checkpoint>',
      skeleton,
      '</checkpoint>',
      'Build your summary on it: keep every path, command, error line and open task it lists, written exactly as there, in the matching sections (Files and code changes, Technical context, Errors and fixes, Pending tasks).',
    );
  return lines.join('\n');
}

type SummaryCheck = { ok: true; text: string } | { ok: false; reason: string };

const HEADING = /^#{1,6}\s*(?:\d+[.)]\s*)?(.+?)\s*#*\s*$/;

function normalizeTitle(title: string): string {
  return title
    .replace(/[*_`:]/g, '')
    .trim()
    .toLowerCase();
}

/**
 * Accepts an answer only if it holds every required section. Returns the summary from its first required heading on
 * (dropping any preamble, `<summary>` tags or code fences around it); rejects an empty answer or one missing a section.
 */
export function checkSummary(answer: string): SummaryCheck {
  let text = answer
    .replace(/<analysis>[\s\S]*?<\/analysis>/gi, '')
    .replace(/<\/?summary>/gi, '')
    .trim();
  text = text.replace(/^```(?:markdown|md)?\s*\n([\s\S]*?)\n```$/i, '$1').trim();
  if (text === '') return { ok: false, reason: 'empty summary' };
  const lines = text.split('\n');
  const wanted = SUMMARY_SECTIONS.map((s) => normalizeTitle(s.title));
  const found = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const m = HEADING.exec(lines[i]);
    if (!m) continue;
    const title = normalizeTitle(m[1]);
    if (wanted.includes(title) && !found.has(title)) found.set(title, i);
  }
  const missing = SUMMARY_SECTIONS.filter((s) => !found.has(normalizeTitle(s.title))).map((s) => s.title);
  if (missing.length > 0) return { ok: false, reason: `malformed summary: missing section(s) ${missing.join(', ')}` };
  const first = Math.min(...found.values());
  return { ok: true, text: lines.slice(first).join('\n').trim() };
}

/** Splits a checked summary into its sections' bodies, by title. */
function summarySections(text: string): Map<SummarySectionTitle, string> {
  const lines = text.split('\n');
  const out = new Map<SummarySectionTitle, string>();
  let current: SummarySectionTitle | undefined;
  let body: string[] = [];
  const flush = () => {
    if (current) out.set(current, body.join('\n').trim());
  };
  for (const line of lines) {
    const m = HEADING.exec(line);
    const title = m ? SUMMARY_SECTIONS.find((s) => normalizeTitle(s.title) === normalizeTitle(m[1]))?.title : undefined;
    if (title) {
      flush();
      current = title;
      body = [];
    } else {
      body.push(line);
    }
  }
  flush();
  return out;
}

/** Sections that describe the end of the span: from the last part only when parts are merged. */
const LATEST_ONLY: ReadonlySet<SummarySectionTitle> = new Set(['Pending tasks', 'Current work', 'Next step']);

/**
 * Merges the summaries of consecutive parts of one span into one summary, without asking the model to summarize its
 * own summaries: each section concatenates the parts' bodies in order, except the sections about the end of the span,
 * which come from the last part.
 */
export function mergeSummaries(parts: readonly string[]): string {
  if (parts.length === 1) return parts[0];
  const split = parts.map(summarySections);
  const out: string[] = [];
  for (const { title } of SUMMARY_SECTIONS) {
    out.push(`## ${title}`);
    if (LATEST_ONLY.has(title)) {
      out.push(split[split.length - 1].get(title) || 'None.');
    } else {
      const bodies = split.map((s) => s.get(title) ?? '').filter((b) => b !== '' && b !== 'None.');
      out.push(bodies.length === 0 ? 'None.' : bodies.join('\n'));
    }
    out.push('');
  }
  return out.join('\n').trim();
}

/* ---------- classify-tangents ---------- */

export const TANGENT_PROMPT_VERSION = 'tcompact-tangents-1';

export function tangentSystemPrompt(): string {
  return [
    "You review the record of an AI agent's working session, split into numbered turns (a turn starts with a user message).",
    'Decide which turns are tangents: turns whose request and work do not contribute to the final task (the request of the last turn), such as side questions, abandoned explorations or unrelated chores.',
    'Answer with one JSON object and nothing else: {"tangents": [{"turn": <turn number>, "reason": "<one line>"}]}. List only clear tangents; never list the last turn; answer {"tangents": []} when there are none.',
  ].join('\n\n');
}

const tangentAnswerSchema = onFirstUse(() =>
  z.object({
    tangents: z.array(z.object({ turn: z.number().int().min(1), reason: z.string().trim().min(1).max(500) })),
  }),
);
export type TangentAnswer = z.infer<ReturnType<typeof tangentAnswerSchema>>;

type TangentCheck = { ok: true; answer: TangentAnswer } | { ok: false; reason: string };

/** Parses the model's JSON (tolerating a code fence or text around the object) and validates it with zod. */
export function checkTangentAnswer(answer: string): TangentCheck {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end < start) return { ok: false, reason: 'the answer holds no JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(answer.slice(start, end + 1));
  } catch (err) {
    return { ok: false, reason: `the answer is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = tangentAnswerSchema().safeParse(value);
  if (!parsed.success) return { ok: false, reason: `the answer does not match the schema: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}` };
  return { ok: true, answer: parsed.data };
}
