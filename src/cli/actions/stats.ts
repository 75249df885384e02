import { readInputs } from '../../formats/read-inputs.js';
import { renderBreakdown, percent } from '../../report/bars.js';
import { writeStatsPage } from '../../report/html/write-pages.js';
import { type Breakdown, addBreakdown, countMessage, countTranscript, emptyBreakdown, totalOf } from '../../tokens/breakdown.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { windowStatus, type WindowStatus } from '../../tokens/window.js';
import { InputTally } from '../commands/_input-tally.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { EXIT } from '../exit-codes.js';
import { FigureGroups } from '../../report/group-figures.js';
import { formatGroups, projectGroups } from '../../report/groups.js';
import { renderGroupFigures } from '../../report/render-groups.js';
import { transcriptProject } from '../../model/project.js';
import { isAssistant } from '../../model/message.js';
import { isSyntheticReply } from '../../model/recorded.js';
import { int } from '../../report/format.js';
import { ArchiveUsage, type TranscriptUsage, totalsLine, usageLine } from '../../replay/billing/archive-usage.js';
import { type OutputAsBilled, outputAsBilled } from '../../replay/billing/recorded-usage.js';
import { maskedLine, maskerFromFlags } from '../secret-masking.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/stats.js';

interface TranscriptStats {
  id: string;
  file: string;
  line: number;
  messages: number;
  tokens: number;
  windowShare: number;
  status: WindowStatus;
  byCategory: Breakdown;
  /** The output recorded and as billed (the mid-stream calls' replies counted), when it recorded usage. */
  output?: OutputAsBilled;
  /** Replies the client wrote itself, with no model call (Claude Code's `<synthetic>`): left out of the calls. */
  syntheticReplies?: number;
  /** The usage its source recorded, and the subagent calls it embedded (absent when none). */
  usage?: TranscriptUsage;
}

/** What 'tcompact stats' does with its parsed flags; loaded only when the command runs. */
export async function statsAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const { inputs, label, sessions } = await inputsOrDiscovered('stats', positionals, values, io);
  const { window, from } = values;
  const tokenizer = getTokenizer(values.tokenizer);
  const maxLineBytes = values['max-line-bytes'];

  let transcripts: TranscriptStats[] = [];
  const total = emptyBreakdown();
  const formats = new FigureGroups(formatGroups);
  const projects = new FigureGroups(projectGroups);
  const tally = new InputTally(io);
  const usage = new ArchiveUsage();
  let syntheticReplies = 0;
  const outputTotal: OutputAsBilled = { recorded: 0, counted: 0, midStreamCalls: 0 };
  for await (const item of readInputs(inputs, { maxLineBytes, from, sessions })) {
    if (!tally.accept(item)) continue;
    const counted = countTranscript(item.transcript, tokenizer);
    addBreakdown(total, counted.byCategory);
    const replies = item.transcript.messages.filter(isAssistant);
    const synthetic = replies.filter(isSyntheticReply).length;
    syntheticReplies += synthetic;
    const toolCalls = replies.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    const figures = { tokens: counted.total, calls: replies.length - synthetic, toolCalls, byCategory: counted.byCategory };
    formats.add(item.format, figures);
    projects.add(transcriptProject(item.transcript), figures);
    transcripts.push({
      id: item.transcript.id,
      file: item.file,
      line: item.line,
      messages: item.transcript.messages.length,
      tokens: counted.total,
      windowShare: counted.total / window,
      status: windowStatus(counted.total, window),
      byCategory: counted.byCategory,
      ...(synthetic > 0 ? { syntheticReplies: synthetic } : {}),
    });
    const output = outputAsBilled(item.transcript, (m) => totalOf(countMessage(m, tokenizer)));
    if (output) {
      transcripts[transcripts.length - 1].output = output;
      outputTotal.recorded += output.recorded;
      outputTotal.counted += output.counted;
      outputTotal.midStreamCalls += output.midStreamCalls;
    }
    const recorded = usage.add(item.transcript);
    if (recorded.recorded || recorded.embedded || recorded.sessionTotals) transcripts[transcripts.length - 1].usage = recorded;
  }
  const masker = maskerFromFlags(values);
  const recordedUsage = masker.value(usage.result());
  const totalTokens = transcripts.reduce((n, t) => n + t.tokens, 0);
  const byFormat = masker.value(formats.result());
  const byProject = masker.value(projects.result());
  transcripts = masker.value(transcripts);
  if (values.html !== undefined) {
    const archiveTotal = { transcripts: transcripts.length, tokens: totalTokens, byCategory: total };
    io.stderr.write(
      `page: ${await writeStatsPage(values.html, { inputs: label, tokenizer: tokenizer.name, window, transcripts, total: archiveTotal, ...(byFormat ? { byFormat } : {}), ...(byProject ? { byProject } : {}) })}\n`,
    );
  }
  if (values.json) {
    const out = {
      tokenizer: tokenizer.name,
      window,
      transcripts,
      total: { transcripts: transcripts.length, tokens: totalTokens, byCategory: total, ...(syntheticReplies > 0 ? { syntheticReplies } : {}) },
      ...(byFormat ? { byFormat } : {}),
      ...(byProject ? { byProject } : {}),
      ...(recordedUsage ? { recordedUsage, outputAsBilled: outputTotal } : {}),
      errors: tally.errors,
      skipped: tally.skipped,
      secretsMasked: masker.counts,
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    for (const t of transcripts) {
      io.stdout.write(`${t.id}  (${t.file}:${t.line})  ${t.messages} messages, ${t.tokens} tokens, ${percent(t.tokens, window)} of ${window}: ${t.status}\n`);
      for (const line of renderBreakdown(t.byCategory)) io.stdout.write(`${line}\n`);
      if (t.usage?.recorded) io.stdout.write(`  recorded usage: ${usageLine(t.usage.recorded)}\n`);
      if (t.usage?.sessionTotals) io.stdout.write(`  recorded usage: ${totalsLine(t.usage.sessionTotals)}\n`);
      if (t.output?.midStreamCalls) io.stdout.write(`  ${outputNote(t.output)}\n`);
      if (t.syntheticReplies) io.stdout.write(`  ${syntheticNote(t.syntheticReplies)}\n`);
      for (const e of t.usage?.embedded ?? []) io.stdout.write(`  embedded subagent ${e.agentId}: ${usageLine(e)}\n`);
    }
    io.stdout.write(
      `\nTotal: ${transcripts.length} transcripts, ${totalTokens} tokens (${tokenizer.name}), ${tally.errors} errors, ${tally.skipped} skipped\n`,
    );
    for (const line of renderBreakdown(total)) io.stdout.write(`${line}\n`);
    io.stdout.write(maskedLine(masker));
    if (byFormat) for (const line of renderGroupFigures('By source format:', 'format', byFormat)) io.stdout.write(`${line}\n`);
    if (byProject) for (const line of renderGroupFigures('By project:', 'project', byProject)) io.stdout.write(`${line}\n`);
    if (recordedUsage) {
      const { recorded, embedded, inOwnTranscripts, sessionTotals } = recordedUsage;
      io.stdout.write(`\nRecorded usage (${recordedUsage.transcripts} transcripts): ${usageLine(recorded)}\n`);
      if (sessionTotals) io.stdout.write(`Recorded session totals (${sessionTotals.transcripts} transcripts): ${totalsLine(sessionTotals)}\n`);
      if (syntheticReplies > 0) io.stdout.write(`${syntheticNote(syntheticReplies)}\n`);
      if (outputTotal.midStreamCalls > 0) io.stdout.write(`${outputNote(outputTotal)}\n`);
      if (embedded.agents > 0 || inOwnTranscripts.agents > 0) {
        io.stdout.write(
          `Embedded subagent calls (progress records): ${usageLine(embedded)} of ${embedded.agents} subagents without a transcript of their own; ` +
            `${inOwnTranscripts.calls} calls of ${inOwnTranscripts.agents} subagents counted in their own transcripts\n`,
        );
      }
    }
  }
  return tally.nothingYielded('stats', label) ?? (tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
}

const syntheticNote = (n: number) => `${n} synthetic ${n === 1 ? 'reply' : 'replies'} (written by the client, no model call) left out of the calls`;

const outputNote = (o: OutputAsBilled) =>
  `output as billed: ${int(o.counted)} tokens, against ${int(o.recorded)} recorded: the usage of ${int(o.midStreamCalls)} calls was logged mid-stream, their output is counted from the replies`;
