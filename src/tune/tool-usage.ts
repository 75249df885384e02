import { type Message, isAssistant, isTool } from '../model/message.js';
import { describeToolCall } from '../model/tool-semantics.js';
import type { Transcript } from '../model/transcript.js';
import { countMessage, totalOf } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { viewOfMessages } from '../retention/model-view.js';
import { collapseWhitespace, normalizeCommand, normalizeProbePath } from '../retention/normalize.js';

/** One tool's part of an archive, and how often the session needed its output again. */
export interface ToolUsage {
  tool: string;
  calls: number;
  /** Tokens of its results (each result message whole). */
  resultTokens: number;
  /** resultTokens / tokens of every message of the archive. */
  share: number;
  /**
   * Calls whose target (a file path, a shell command) the session acted on or named again after the result: what
   * clearing that result may cost a redo. Calls of tools with no such target count in `untargeted`.
   */
  neededLater: number;
  untargeted: number;
  /** neededLater / (calls - untargeted), or null when no call had a target. */
  neededRate: number | null;
}

interface Tally {
  calls: number;
  resultTokens: number;
  neededLater: number;
  untargeted: number;
}

/**
 * Tallies tool usage over the transcripts it is given, one at a time. A call's target is needed later when a later call
 * reads, edits, writes or lists the same path or runs the same command, or a later message names the path or the
 * command (the same facts hindsight probes look for, per call).
 */
export class ToolUsageTally {
  private readonly byTool = new Map<string, Tally>();
  private totalTokens = 0;

  constructor(private readonly tok: Tokenizer) {}

  add(transcript: Transcript): void {
    const messages = transcript.messages;
    for (const m of messages) this.totalTokens += totalOf(countMessage(m, this.tok));
    const results = new Map<string, number>();
    messages.forEach((m, i) => {
      if (isTool(m) && !results.has(m.tool_call_id)) results.set(m.tool_call_id, i);
    });
    const laterText = suffixTexts(messages);
    const laterTargets = suffixTargets(messages);
    messages.forEach((m, i) => {
      if (!isAssistant(m)) return;
      for (const call of m.tool_calls ?? []) {
        const tally = this.tally(call.function.name);
        tally.calls++;
        const at = results.get(call.id);
        if (at !== undefined) tally.resultTokens += totalOf(countMessage(messages[at], this.tok));
        const target = targetOf(call.function.name, call.function.arguments);
        if (target === undefined) {
          tally.untargeted++;
          continue;
        }
        const after = (at ?? i) + 1;
        if (after < messages.length && (laterTargets[after].has(target.key) || laterText(after).includes(target.spelling))) tally.neededLater++;
      }
    });
  }

  private tally(tool: string): Tally {
    let t = this.byTool.get(tool);
    if (!t) this.byTool.set(tool, (t = { calls: 0, resultTokens: 0, neededLater: 0, untargeted: 0 }));
    return t;
  }

  /** By result tokens, largest first (ties by name). */
  usage(): ToolUsage[] {
    return [...this.byTool.entries()]
      .map(([tool, t]) => ({
        tool,
        ...t,
        share: this.totalTokens > 0 ? t.resultTokens / this.totalTokens : 0,
        neededRate: t.calls - t.untargeted > 0 ? t.neededLater / (t.calls - t.untargeted) : null,
      }))
      .sort((a, b) => b.resultTokens - a.resultTokens || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}

function targetOf(name: string, args: string): { key: string; spelling: string } | undefined {
  const action = describeToolCall(name, args);
  switch (action.kind) {
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
      return action.path === '' ? undefined : { key: `path\0${normalizeProbePath(action.path)}`, spelling: collapseWhitespace(action.path) };
    case 'shell': {
      const command = normalizeCommand(action.command);
      return command === '' ? undefined : { key: `command\0${command}`, spelling: command };
    }
    default:
      return undefined;
  }
}

/** For each index, the targets of the calls from there on. */
function suffixTargets(messages: readonly Message[]): Set<string>[] {
  const out: Set<string>[] = new Array(messages.length + 1);
  let acc = new Set<string>();
  out[messages.length] = acc;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isAssistant(m) && m.tool_calls) {
      acc = new Set(acc);
      for (const c of m.tool_calls) {
        const t = targetOf(c.function.name, c.function.arguments);
        if (t) acc.add(t.key);
      }
    }
    out[i] = acc;
  }
  return out;
}

/**
 * Whether the model-view text of the messages from an index on contains a string: the messages' texts joined once, each
 * search starting at that message's offset (a match across two messages is as good as none, and as rare).
 */
function suffixTexts(messages: readonly Message[]): (from: number) => { includes(needle: string): boolean } {
  const texts = messages.map((m) => viewOfMessages([m]).text);
  const offsets: number[] = [];
  let at = 0;
  for (const t of texts) {
    offsets.push(at);
    at += t.length + 1;
  }
  const all = texts.join(' ');
  return (from) => ({ includes: (needle: string) => all.indexOf(needle, offsets[from] ?? all.length) !== -1 });
}
