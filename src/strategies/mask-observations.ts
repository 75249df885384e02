import * as z from 'zod';
import { contentText } from '../model/content.js';
import { type Message, type ToolMessage, isTool } from '../model/message.js';
import { errorLine, isFailedResult } from '../model/tool-outcome.js';
import { MESSAGE_OVERHEAD_TOKENS, messageTokens } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { BoundaryFields, ToolHintsField } from './_config.js';
import { fewerTokens, withMessages } from './_edit.js';
import { REF_SHAPE, isCompactedResult, maskText } from './_placeholders.js';
import { indexToolCalls, toolNameOf } from './_tool-index.js';
import { protectedRange } from './boundaries.js';
import type { Strategy } from './types.js';

const MaskObservationsConfigSchema = z.strictObject({
  ...BoundaryFields,
  ...ToolHintsField,
  /** Only results whose text is larger than this many UTF-8 bytes are masked. @default 800 */
  minBytes: z.number().int().min(0).default(800),
  /** Tools whose results are never masked. @default the tools whose hint has `maskExempt: true` (TodoWrite, Task, ...) */
  exemptTools: z.array(z.string()).optional(),
});

type MaskObservationsConfig = z.output<typeof MaskObservationsConfigSchema>;

/**
 * Whether `text` takes more than `bytes` bytes in UTF-8, counted only when its length does not say: a UTF-16 unit
 * takes one to three bytes. Most results are far from the threshold, and this runs on every result of every transcript.
 */
function longerThan(text: string, bytes: number): boolean {
  if (text.length > bytes) return true;
  if (text.length * 3 <= bytes) return false;
  return Buffer.byteLength(text, 'utf8') > bytes;
}

/**
 * Whether `m` costs more tokens than the placeholder `shaped` (with {@link REF_SHAPE} for its ref) would with any ref,
 * or undefined when only the placeholder with its own ref can tell. The heuristic counts a text by its length, which
 * no ref changes, so it always tells. A byte-level BPE takes at most one token per UTF-8 byte and a ref takes as many
 * bytes as its shape: a result costing more tokens than the placeholder has bytes saves tokens whatever its ref, and
 * the placeholder is not counted. Any other counter (one that scales counts) is asked with the real ref.
 */
function savesTokens(m: ToolMessage, shaped: string, tokenizer: Tokenizer): boolean | undefined {
  const tokens = messageTokens(m, tokenizer);
  if (tokenizer.engine === null) return messageTokens({ ...m, content: shaped }, tokenizer) < tokens;
  return tokenizer.atMostOnePerByte && tokens > MESSAGE_OVERHEAD_TOKENS + Buffer.byteLength(shaped, 'utf8') ? true : undefined;
}

const exemptByConfig = new WeakMap<MaskObservationsConfig, ReadonlySet<string>>();

/** The tools never masked, once per parsed config (a run applies one config to every transcript). */
function exemptTools(config: MaskObservationsConfig): ReadonlySet<string> {
  let exempt = exemptByConfig.get(config);
  if (!exempt) {
    exempt = new Set(config.exemptTools ?? Object.keys(config.toolHints).filter((name) => config.toolHints[name].maskExempt));
    exemptByConfig.set(config, exempt);
  }
  return exempt;
}

/**
 * Observation masking (micro-compaction): old, large tool results become `[Previous: used {tool}] (ref: ...)`, the
 * original content kept in the side store under that ref; a failed result keeps its error line
 * (`[Previous: used Bash] failed: {line}`). The call stays, so the model still sees what it did.
 */
export const maskObservations: Strategy<typeof MaskObservationsConfigSchema> = {
  name: 'mask-observations',
  summary: 'replace old large tool results with "[Previous: used {tool}]" and a reference to the original',
  config: MaskObservationsConfigSchema,
  apply(transcript, config, ctx) {
    const messages = transcript.messages;
    const { headEnd, tailStart } = protectedRange(messages, config);
    const exempt = exemptTools(config);
    // Built when a result is first large enough to mask: most transcripts have none outside the protected tail.
    let calls: ReturnType<typeof indexToolCalls> | undefined;
    // The last `keepResults` results of the whole transcript are in the protected tail.
    const end = tailStart;
    let out: Message[] | undefined;
    let bytesMasked = 0;
    let masked = 0;
    for (let i = headEnd; i < end; i++) {
      const m = messages[i];
      if (!isTool(m)) continue;
      const text = contentText(m.content);
      if (!longerThan(text, config.minBytes) || isCompactedResult(text)) continue;
      calls ??= indexToolCalls(messages);
      const tool = toolNameOf(calls, m);
      if (exempt.has(tool)) continue;
      const failure = isFailedResult(m) ? errorLine(m) : undefined;
      let next: ToolMessage;
      if (ctx.refs) {
        // The placeholder names the original's ref, which costs a hash of the original: weigh its shape first.
        const saves = savesTokens(m, maskText(tool, REF_SHAPE, failure), ctx.tokenizer);
        if (saves === false) continue;
        const original = ctx.refs.contentRef(m);
        next = { ...m, content: maskText(tool, original.ref, failure) };
        if (saves === undefined && !fewerTokens(m, next, ctx.tokenizer)) continue;
        // Stored only when the placeholder is taken.
        original.keep();
      } else {
        next = { ...m, content: maskText(tool, undefined, failure) };
        if (!fewerTokens(m, next, ctx.tokenizer)) continue;
      }
      out ??= messages.slice();
      out[i] = next;
      masked++;
      bytesMasked += Buffer.byteLength(text, 'utf8');
    }
    return {
      transcript: out ? withMessages(transcript, out) : transcript,
      messagesChanged: masked,
      messagesRemoved: 0,
      details: { resultsMasked: masked, bytesMasked },
    };
  },
};
