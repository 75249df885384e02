import { describe, expect, it } from 'vitest';
import { sectionTexts } from '../../../src/pipeline/shard/encoding.js';
import { ShardBuilder } from '../../../src/pipeline/shard/shard-builder.js';
import type { TranscriptReport } from '../../../src/pipeline/shard/types.js';

const report = (id: string) => ({ id }) as unknown as TranscriptReport;

describe('shard builder', () => {
  it('writes lines given as text or as their own UTF-8 bytes in order, multi-byte characters whole, before errors and refs', () => {
    const builder = new ShardBuilder();
    const own = Buffer.from('{"id":"b","messages":[{"role":"user","content":"naïve 日本語 🙂"}]}', 'utf8');
    builder.addTranscript('{"id":"a","messages":[{"role":"user","content":"é 🙂"}]}', report('a'), 1, 'openai', 0, {});
    builder.addTranscript(own, report('b'), 1, 'openai', 0, {});
    builder.addError({ file: 'f.jsonl', line: 3, byteOffset: 9, code: 'E_JSON', message: 'bad' });
    const output = builder.finish();
    const texts = sectionTexts(output);
    expect(texts.transcripts).toBe(
      '{"id":"a","messages":[{"role":"user","content":"é 🙂"}]}\n{"id":"b","messages":[{"role":"user","content":"naïve 日本語 🙂"}]}\n',
    );
    expect(output.sizes.transcripts).toBe(Buffer.byteLength(texts.transcripts, 'utf8'));
    expect(JSON.parse(texts.errors)).toEqual({ file: 'f.jsonl', line: 3, byteOffset: 9, code: 'E_JSON', message: 'bad' });
    expect(output.report.transcripts.map((r) => r.id)).toEqual(['a', 'b']);
    expect(output.report.counts.lines).toEqual({ read: 3, ok: 2, failed: 1, skipped: 0 });
  });
});
