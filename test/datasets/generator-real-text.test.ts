import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateRealTextArchive } from '../../datasets/generate-real-text.js';
import type { Transcript } from '../../src/model/transcript.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Every text the tokenizer is handed for a message (content, text parts, reasoning, tool-call arguments). */
function texts(t: Transcript): string[] {
  const out: string[] = [];
  for (const m of t.messages as Record<string, unknown>[]) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content as { type: string; text?: string }[]) if (p.type === 'text') out.push(p.text ?? '');
    if (typeof m.reasoning_content === 'string') out.push(m.reasoning_content);
    for (const c of (m.tool_calls ?? []) as { function: { arguments: string } }[]) out.push(c.function.arguments);
  }
  return out;
}

describe('real-text archive generator', () => {
  let templates: Transcript[];
  let lines: string[];
  beforeAll(async () => {
    templates = await bundledTranscripts();
    lines = [...generateRealTextArchive(templates, { seed: 5, targetBytes: 3_000_000 })];
  });

  it('is deterministic for a seed and reaches the requested size', () => {
    expect(sha([...generateRealTextArchive(templates, { seed: 5, targetBytes: 3_000_000 })].join('\n'))).toBe(sha(lines.join('\n')));
    expect(sha([...generateRealTextArchive(templates, { seed: 6, targetBytes: 3_000_000 })].join('\n'))).not.toBe(sha(lines.join('\n')));
    expect(lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0)).toBeGreaterThanOrEqual(3_000_000);
  });

  it('writes valid canonical transcripts with the shapes of real ones', () => {
    for (const line of lines) {
      const parsed = parseTranscript(JSON.parse(line));
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(findViolations(parsed.value.transcript.messages)).toEqual([]);
    }
  });

  it('repeats no text of 64+ characters verbatim, and every text is cut from real texts', () => {
    const real = templates.flatMap(texts).join('\n');
    const seen = new Set<string>();
    let long = 0;
    let plain = 0;
    let fromReal = 0;
    for (const line of lines) {
      for (const text of texts(JSON.parse(line) as Transcript)) {
        if (text.length < 64) continue;
        long++;
        expect(seen.has(text)).toBe(false);
        seen.add(text);
        // A text starts with a segment of a real text, unless that segment was a short text whole (arguments are
        // re-serialized JSON: their values are the segments).
        if (!text.startsWith('{')) {
          plain++;
          if (real.includes(text.slice(0, 32))) fromReal++;
        }
      }
    }
    expect(long).toBeGreaterThan(1000);
    expect(fromReal / plain).toBeGreaterThan(0.9);
  });
});
