import type { LlmRunUsage } from '../../llm/session.js';
import type { BatchRunReport } from '../../llm/batcher.js';
import type { ArchiveReport } from '../../report/archive-report.js';
import { percent, usdFine } from '../../report/format.js';
import { markdownTable } from '../../report/markdown-table.js';
import { renderCategoryTable, renderStrategyTable } from '../../report/render-markdown.js';
import type { RunReport } from './run-report.js';

const PADDED = { layout: 'padded' } as const;

/** report.md: report.json for a person to read, with the per-strategy table. */
export function renderRunReport(r: RunReport, archive: ArchiveReport): string {
  const out: string[] = ['# tcompact run report', '', `Inputs: ${r.inputs.map((i) => `\`${i}\``).join(', ')}`, ''];
  out.push(
    `- Lines: ${r.lines.read} read, ${r.lines.ok} ok, ${r.lines.failed} failed, ${r.lines.skipped} skipped`,
    `- Transcripts: ${r.transcripts} (messages ${r.messages.before} -> ${r.messages.after})`,
    `- Tokens (${r.tokens.tokenizer}): ${r.tokens.before} -> ${r.tokens.after}, saved ${r.tokens.saved} (${percent(r.tokens.saved, r.tokens.before)})`,
    `- Workers: ${r.workers}; ${r.timing.wallMs} ms, ${r.timing.mbPerSec} MB/s over ${r.timing.bytes} bytes`,
    '',
    '## Per strategy',
    '',
    ...renderStrategyTable(archive),
    '',
    '## Per category',
    '',
  );
  out.push(...renderCategoryTable(r.byCategory));
  const table = (title: string, record: Record<string, number>): void => {
    const entries = Object.entries(record);
    if (entries.length === 0) return;
    out.push(
      '',
      `## ${title}`,
      '',
      ...markdownTable(
        ['', 'count'],
        entries.map(([k, n]) => [k, String(n)]),
        'lr',
        PADDED,
      ),
    );
  };
  table('Errors by code (input lines; each one is in errors.jsonl)', r.errorsByCode);
  table('Skipped by reason', r.skippedByReason);
  table('Input formats (transcripts)', r.formats);
  if (r.byProject) out.push('', '## By project', '', ...renderByProject(r.byProject));
  table('Repairs', r.repairs);
  if (r.llm) out.push(...renderLlmUsage(r.llm));
  const dup = r.duplicateIds;
  out.push('', `Warnings: ${r.warnings}. Duplicate transcript ids: ${dup.count}${dup.examples.length > 0 ? ` (${dup.examples.join(', ')})` : ''}.`);
  const e = r.execution;
  out.push(`Shards: ${e.shards} (${e.reusedShards} reused from an interrupted run, ${e.retriedShards} retried, ${e.failedShards} failed).`, '');
  return out.join('\n');
}

/** Each project's transcripts and tokens, one line per project (the folder its sessions worked in). */
function renderByProject(byProject: NonNullable<RunReport['byProject']>): string[] {
  return markdownTable(
    ['project', 'transcripts', 'tokens before', 'after', 'saved', 'share saved'],
    Object.entries(byProject).map(([project, p]) => [
      project.replaceAll('|', '\\|'),
      String(p.transcripts),
      String(p.tokensBefore),
      String(p.tokensAfter),
      String(p.tokensSaved),
      percent(p.tokensSaved, p.tokensBefore),
    ]),
    'lrrrrr',
    PADDED,
  );
}

function renderLlmUsage(u: LlmRunUsage): string[] {
  const cost = u.costUsd === null ? 'unknown (set --price-in/--price-out)' : `${usdFine(u.costUsd)}${u.estimated ? ' (some usage estimated)' : ''}`;
  const limit = (n: number | null) => (n === null ? 'none' : String(n));
  const failures = Object.entries(u.failuresByCode).map(([code, n]) => `${code} ${n}`);
  const out = [
    '',
    `## LLM (${u.model})`,
    '',
    `- Requests: ${u.requests} (${u.answers} answers, ${u.cacheHits} from the cache); failed: ${failures.length > 0 ? failures.join(', ') : 'none'}; queue pauses after a 429: ${u.pauses}`,
    `- Tokens: ${u.promptTokens} prompt + ${u.completionTokens} completion = ${u.totalTokens}; cost: ${cost}`,
    `- Limits in force at the end: rpm ${limit(u.limits.rpm)}, tpm ${limit(u.limits.tpm)}`,
    `- Transcripts that fell back: ${u.fallbacks.count}`,
  ];
  if (u.fallbacks.examples.length > 0) {
    const rows = u.fallbacks.examples.map((f) => [f.id, f.strategy, f.applied.join(' + ') || 'unchanged', tableCell(f.reason)]);
    out.push('', ...markdownTable(['transcript', 'step', 'instead', 'reason'], rows, 'llll', PADDED));
  }
  if (u.batch) out.push(...renderBatches(u.batch));
  return out;
}

function renderBatches(b: BatchRunReport): string[] {
  const out = [
    '',
    `### Batch API`,
    '',
    `- ${b.batches} batches, ${b.requests} requests: ${b.completed} answered, ${b.failed} failed, ${b.expired} expired or cancelled; ${b.retriedOnline} asked again online`,
    ...b.list.map((l) => `- Batch ${l.id}: ${l.status}, ${l.requests} requests, ${l.completed} completed, ${l.failed} failed`),
  ];
  if (b.unanswered.examples.length > 0) {
    const rows = b.unanswered.examples.map((u) => [u.label, u.customId.slice(0, 16), u.then === 'online' ? 'asked online' : 'fell back', tableCell(u.reason)]);
    out.push('', ...markdownTable(['transcript', 'custom_id', 'then', 'reason'], rows, 'llll', PADDED));
  }
  return out;
}

/** A reason quotes the server's answer: one line, no column breaks, at most 200 characters. */
function tableCell(text: string): string {
  const line = text.replace(/\s+/g, ' ').replaceAll('|', '\\|');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
