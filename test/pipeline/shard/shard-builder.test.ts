import { describe, expect, it } from 'vitest';
import { bodyParts, outputBuffers, sectionTexts } from '../../../src/pipeline/shard/encoding.js';
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

  it("hands the side store's input lines on in the chunks they were read into when they are the shard's own, and copies them otherwise", () => {
    // Two input lines read into one chunk of their own (larger than Node's Buffer pool), as the worker's line reader
    // yields them: views of it.
    const lines = ['{"id":"a","messages":[{"role":"user","content":"é 🙂 a"}]}', '{"id":"b","messages":[{"role":"user","content":"b"}]}'];
    const chunk = Buffer.allocUnsafeSlow(64 * 1024).fill(32);
    const views = lines.map((line, i) => {
      const at = i * 1000;
      const n = chunk.write(line, at, 'utf8');
      return chunk.subarray(at, at + n);
    });
    const build = (ownLines: boolean) => {
      const builder = new ShardBuilder(0, ownLines);
      lines.forEach((line, i) => {
        const transcript = JSON.parse(line);
        builder.refs.withSource(transcript, views[i]);
        builder.refs.putJson('{"note":"before"}');
        builder.refs.storeLayer(transcript);
        builder.addTranscript('{"id":"x"}', report(String(i)), 1, 'openai', 0, {});
      });
      return builder.finish();
    };
    const own = build(true);
    const copied = build(false);
    expect(sectionTexts(own)).toEqual(sectionTexts(copied));
    expect(sectionTexts(own).refs).toContain(lines[0]);
    expect(own.sizes).toEqual(copied.sizes);
    expect(copied.refParts).toBeUndefined();
    expect(own.refParts?.filter((p) => p.buffer === chunk.buffer)).toEqual(views);
    expect(outputBuffers(own)).toEqual([own.body.buffer, chunk.buffer]);
    expect(Buffer.concat(bodyParts(own))).toEqual(Buffer.concat(bodyParts(copied)));
    // Only the text between the lines is in the body.
    expect(own.body.byteLength).toBe(copied.body.byteLength - views[0].byteLength - views[1].byteLength);
  });
});
