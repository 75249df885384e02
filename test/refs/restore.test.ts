import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { restoreCommand } from '../../src/cli/commands/restore.js';
import { SIDE_STORE_HEADER, formatRefLine, locatorLine, parseRefLine } from '../../src/refs/ref-file.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recipeSchema, tcompactMetadata } from '../../src/refs/recipe.js';
import { RefSink, locatorRef, refOf } from '../../src/refs/ref-store.js';
import { restoreTranscript, restoreWithFates } from '../../src/refs/restore.js';
import { checkpoint } from '../../src/strategies/checkpoint.js';
import { compactTranscript } from '../../src/strategies/compact-transcript.js';
import { dedupTools } from '../../src/strategies/dedup-tools.js';
import { maskObservations } from '../../src/strategies/mask-observations.js';
import { pruneTools } from '../../src/strategies/prune-tools.js';
import type { PipelineStep } from '../../src/strategies/runner.js';
import { stripAttachments } from '../../src/strategies/strip-attachments.js';
import type { Strategy } from '../../src/strategies/types.js';
import { LAST_TURN, assistant, call, deepFreeze, makeContext, result, sys, transcript, user } from '../helpers/transcript-kit.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A step on these small hand-made transcripts, framed by their last turn (LAST_TURN) where the strategy has a tail. */
const step = (strategy: Strategy, config: Record<string, unknown> = {}): PipelineStep => {
  const shape =
    (strategy.config as unknown as { shape?: Record<string, unknown> }).shape ??
    (strategy.config as unknown as { def?: { in?: { shape?: object } } }).def?.in?.shape ??
    {};
  const frame = 'keepMessages' in shape ? LAST_TURN : {};
  return { strategy, config: strategy.config.parse({ ...frame, ...config }) };
};
const fileText = Array.from({ length: 200 }, (_, i) => `${i + 1}\tline ${i}`).join('\n');

function readTwice(): Transcript {
  return transcript(
    [
      sys('s'),
      user('look at a.ts'),
      assistant(null, { tool_calls: [call('a', 'Read', { file_path: 'a.ts', offset: 5, limit: 10 })] }),
      result('a', fileText.slice(0, 200)),
      assistant('now the whole file', { tool_calls: [call('b', 'Read', { file_path: 'a.ts' })] }),
      result('b', fileText),
      user('thanks'),
      assistant('done'),
    ],
    {
      tools: [
        { type: 'function', function: { name: 'Read' } },
        { type: 'function', function: { name: 'Bash' } },
      ],
      metadata: { source: 'test', n: 1 },
    },
  );
}

/** Characters a sink's entries take in the side store file. */
const storedChars = (sink: RefSink): number => sink.lines().length;

/** A sink's entries as a Map of ref to data, to alter. */
const asMap = (sink: RefSink): Map<string, string> => new Map([...sink.entries.keys()].map((ref) => [ref, sink.get(ref)!]));

/** What `tcompact` writes and reads back: the output line parsed again. */
const roundTrip = (t: Transcript): Transcript => JSON.parse(JSON.stringify(t)) as Transcript;

function restored(t: Transcript, refs: RefSink): Transcript {
  const r = restoreTranscript(roundTrip(t), refs);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('compactTranscript and restoreTranscript', () => {
  it('records a restore recipe and restores the input byte for byte', () => {
    const input = deepFreeze(readTwice());
    const ctx = makeContext();
    const r = compactTranscript(input, [step(dedupTools), step(pruneTools)], ctx);
    expect(r.transcript.messages).toHaveLength(6);
    expect(r.transcript.tools).toEqual([{ type: 'function', function: { name: 'Read' } }]);
    expect(r.transcript.metadata).toEqual({ source: 'test', n: 1, tcompact: { restore: r.restore, layers: 1 } });
    const recipe = recipeSchema().parse(JSON.parse(ctx.refs!.get(r.restore!)!));
    // The input is stored whole, once; the recipe maps each of its messages to where it went.
    expect(recipe).toEqual({
      v: 2,
      input: refOf(JSON.stringify(input)),
      messages: [{ keep: 0, n: 2 }, { gone: 2 }, { keep: 2, n: 4 }],
    });
    expect(ctx.refs!.get(refOf(JSON.stringify(input)))).toBe(JSON.stringify(input));
    expect(JSON.stringify(restored(r.transcript, ctx.refs!))).toBe(JSON.stringify(input));
  });

  it('returns the input itself when nothing changed, without a recipe', () => {
    const input = transcript([user('hi'), assistant('hello')]);
    const ctx = makeContext();
    const r = compactTranscript(input, [step(dedupTools), step(checkpoint)], ctx);
    expect(r.transcript).toBe(input);
    expect(r.restore).toBeUndefined();
    expect(ctx.refs!.entries.size).toBe(0);
    expect(restoreTranscript(input, ctx.refs!)).toEqual({ ok: true, value: input });
  });

  it('adds nothing when refs are off', () => {
    const r = compactTranscript(readTwice(), [step(dedupTools)], makeContext({ refs: false }));
    expect(r.transcript.messages).toHaveLength(6);
    expect(r.transcript.metadata).toEqual({ source: 'test', n: 1 });
  });

  it('is byte-identical when compacting its own output again', () => {
    const ctx = makeContext();
    const steps = [step(dedupTools), step(pruneTools)];
    const once = roundTrip(compactTranscript(readTwice(), steps, ctx).transcript);
    const twice = compactTranscript(once, steps, ctx);
    expect(twice.transcript).toBe(once);
    expect(JSON.stringify(twice.transcript)).toBe(JSON.stringify(once));
  });

  it('chains layers: a second compaction restores to the first, and that to the original', () => {
    const input = readTwice();
    const more: Message[] = [
      ...input.messages.slice(0, -1),
      assistant('running', { tool_calls: [call('c', 'Bash', { command: 'npm test' })] }),
      result('c', fileText),
      user('and now?'),
    ];
    const ctx = makeContext();
    const first = roundTrip(compactTranscript(transcript(more, { metadata: { source: 'x' } }), [step(dedupTools)], ctx).transcript);
    const second = compactTranscript(first, [step(checkpoint)], ctx);
    expect(tcompactMetadata(second.transcript)).toEqual({ restore: second.restore, layers: 2 });
    const back = restoreTranscript(roundTrip(second.transcript), ctx.refs!);
    expect(back.ok && JSON.stringify(back.value)).toBe(JSON.stringify(transcript(more, { metadata: { source: 'x' } })));
  });

  it('says where each original message went through two layers: kept at its index now, or stored under a ref', () => {
    const input = readTwice();
    const more: Message[] = [
      ...input.messages.slice(0, -1),
      assistant('running', { tool_calls: [call('c', 'Bash', { command: 'npm test' })] }),
      result('c', fileText),
      user('and now?'),
    ];
    const original = transcript(more, { metadata: { source: 'x' } });
    const ctx = makeContext();
    const first = roundTrip(compactTranscript(original, [step(dedupTools)], ctx).transcript);
    const second = roundTrip(compactTranscript(first, [step(checkpoint)], ctx).transcript);
    const r = restoreWithFates(second, ctx.refs!);
    if (!r.ok) throw new Error(r.error.message);
    expect(JSON.stringify(r.value.transcript)).toBe(JSON.stringify(original));
    // dedup-tools removed the first read (call and result), the checkpoint replaced the middle; the head and the
    // last request stayed, now at new places.
    expect(r.value.fates.map((f) => ('kept' in f ? f.kept : 'stored'))).toEqual([
      0,
      1,
      'stored',
      'stored',
      'stored',
      'stored',
      'stored',
      'stored',
      'stored',
      3,
    ]);
    // A message that went is read from the stored input of the layer it went in, by its index there.
    r.value.fates.forEach((f, i) => {
      if ('kept' in f) expect(second.messages[f.kept]).toEqual(original.messages[i]);
      else expect(JSON.parse(ctx.refs!.get(f.stored)!)).toEqual(original.messages[i]);
    });
    expect(r.value.fates.filter((f) => 'stored' in f && f.stored.startsWith(`${refOf(JSON.stringify(original))}/messages/`))).toHaveLength(2);
    const untouched = restoreWithFates(original, ctx.refs!);
    expect(untouched.ok && untouched.value.fates).toEqual(original.messages.map((_, i) => ({ kept: i })));
  });

  it('stores a masked result once, inside the stored input: its placeholder names where it sits there', () => {
    const big = `${fileText}\n`.repeat(3);
    const input = deepFreeze(
      transcript([
        sys('s'),
        user('run the tests'),
        assistant(null, { tool_calls: [call('a', 'Bash', { command: 'npm test' })] }),
        result('a', big),
        user('thanks'),
        assistant('done'),
      ]),
    );
    const ctx = makeContext();
    const r = compactTranscript(input, [step(maskObservations, { keepResults: 0 })], ctx);
    expect(r.transcript.messages[3].content).toMatch(/^\[Previous: used Bash\]/);
    const ref = /\(ref: ([0-9a-f]{16})\)/.exec(r.transcript.messages[3].content as string)![1];
    expect(ref).toBe(locatorRef(refOf(JSON.stringify(input)), ['messages', 3, 'content']));
    expect(ctx.refs!.get(ref)).toBe(JSON.stringify(big));
    expect(storedChars(ctx.refs!)).toBeLessThan(JSON.stringify(input).length + 1000);
    expect(JSON.stringify(restored(r.transcript, ctx.refs!))).toBe(JSON.stringify(input));
  });

  it('stores a stripped attachment once, inside the stored input: its placeholder names the part by index', () => {
    const image = { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${'iVBORw0KGgo'.repeat(400)}` } };
    const input = deepFreeze(
      transcript([
        sys('s'),
        user('what is on the screen?'),
        assistant(null, { tool_calls: [call('a', 'Screenshot', {})] }),
        result('a', [{ type: 'text', text: 'screen:' }, image]),
        user('thanks'),
        assistant('done'),
      ]),
    );
    const ctx = makeContext();
    const r = compactTranscript(input, [step(stripAttachments)], ctx);
    const text = (r.transcript.messages[3].content as { type: string; text?: string }[])[1].text!;
    const ref = /\(ref: ([0-9a-f]{16})\)/.exec(text)![1];
    expect(ref).toBe(locatorRef(refOf(JSON.stringify(input)), ['messages', 3, 'content', 1]));
    expect(ctx.refs!.get(ref)).toBe(JSON.stringify(image));
    expect(storedChars(ctx.refs!)).toBeLessThan(JSON.stringify(input).length + 1000);
    expect(JSON.stringify(restored(r.transcript, ctx.refs!))).toBe(JSON.stringify(input));
  });

  it('names the transcript and the ref when a ref is missing or altered', () => {
    const ctx = makeContext();
    const r = compactTranscript(readTwice(), [step(dedupTools)], ctx);
    const recipe = recipeSchema().parse(JSON.parse(ctx.refs!.get(r.restore!)!));
    const lost = recipe.v === 2 ? recipe.input : '';
    const partial = new Map([...asMap(ctx.refs!)].filter(([ref]) => ref !== lost));
    expect(restoreTranscript(r.transcript, partial)).toEqual({
      ok: false,
      error: { code: 'E_REF', message: `transcript "t1": layer input: ref ${lost} is missing from the side store` },
    });
    const altered = asMap(ctx.refs!);
    altered.set(lost, JSON.stringify({ ...readTwice(), id: 'forged' }));
    expect(restoreTranscript(r.transcript, altered)).toEqual({
      ok: false,
      error: { code: 'E_REF', message: `transcript "t1": layer input: the side store entry for ref ${lost} does not match its content` },
    });
    expect(restoreTranscript(r.transcript, new Map())).toEqual({
      ok: false,
      error: { code: 'E_REF', message: `transcript "t1": restore recipe: ref ${r.restore} is missing from the side store` },
    });
  });
});

async function restoreCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const code = await restoreCommand.run(args, { stdout, stderr });
  return { code, stdout: out, stderr: err };
}

describe('tcompact restore', () => {
  /** Three transcripts: two compacted, one unchanged; lines as `compact`/`run` write them, refs in first-use order. */
  function archive() {
    const sink = new RefSink();
    const other = readTwice();
    const t3 = { ...other, id: 't3', messages: other.messages.map((m, i) => (i === 3 ? result('a', 'another first read') : m)) };
    const inputs = [readTwice(), transcript([user('hi'), assistant('hello')], { id: 't2' }), t3];
    const lines = inputs.map((t) => JSON.stringify(compactTranscript(t, [step(dedupTools), step(pruneTools)], { ...makeContext(), refs: sink }).transcript));
    const refs = sink.lines().split(/(?<=\n)/);
    return { inputs, lines: `${lines.join('\n')}\n`, refs, expected: inputs.map((t) => `${JSON.stringify(t)}\n`).join('') };
  }

  it('restores a run output directory (transcripts.jsonl + refs.jsonl)', async () => {
    const dir = tempDir('restore');
    const a = archive();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'transcripts.jsonl'), a.lines);
    writeFileSync(join(dir, 'out', 'refs.jsonl'), a.refs.join(''));
    const r = await restoreCli([join(dir, 'out'), '--out', join(dir, 'back.jsonl')]);
    expect(r).toEqual({ code: 0, stdout: `restore: 2 restored, 1 unchanged, 0 failed, 0 blank lines skipped -> ${join(dir, 'back.jsonl')}\n`, stderr: '' });
    expect(readFileSync(join(dir, 'back.jsonl'), 'utf8')).toBe(a.expected);
  });

  it('reads each side-store line form: JSON embedded as written, the same reformatted, and text as a string', async () => {
    const dir = tempDir('restore');
    const a = archive();
    // tcompact writes every entry in the JSON form, its data unescaped, or as a locator into a stored input.
    expect(a.refs.every((line) => /^\{"ref":"[0-9a-f]{16}","(json":[[{]|at":"[0-9a-f]{16}","path":\[)/.test(line))).toBe(true);
    const entries = a.refs.map((line) => parseRefLine(line.trimEnd()));
    const forms = {
      asString: entries.map((e) => ('data' in e ? formatRefLine(e.ref, e.data) : locatorLine(e.ref, e.at, e.path))),
      reformatted: entries.map(
        (e) => `${JSON.stringify('data' in e ? { ref: e.ref, json: JSON.parse(e.data) as unknown } : e, null, 1).replaceAll('\n', '')}\n`,
      ),
    };
    for (const [name, lines] of Object.entries(forms)) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'transcripts.jsonl'), a.lines);
      writeFileSync(join(dir, name, 'refs.jsonl'), lines.join(''));
      const r = await restoreCli([join(dir, name), '--out', join(dir, `${name}.jsonl`)]);
      expect(r.code, name).toBe(0);
      expect(readFileSync(join(dir, `${name}.jsonl`), 'utf8'), name).toBe(a.expected);
    }
  });

  it('names the transcript of a missing ref, leaves it out, restores the rest and exits 1', async () => {
    const dir = tempDir('restore');
    const a = archive();
    const lost = refOf(JSON.stringify(a.inputs[2]));
    writeFileSync(join(dir, 'c.jsonl'), a.lines);
    writeFileSync(join(dir, 'c.refs.jsonl'), a.refs.filter((line) => !line.startsWith(`{"ref":"${lost}"`)).join(''));
    const r = await restoreCli([join(dir, 'c.jsonl'), '--out', join(dir, 'back.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${join(dir, 'c.jsonl')}:3: E_REF: transcript "t3": layer input: ref ${lost} is missing from the side store\n`);
    expect(readFileSync(join(dir, 'back.jsonl'), 'utf8')).toBe(`${a.expected.split('\n').slice(0, 2).join('\n')}\n`);
  });

  it('restores an archive whose side store is in the first format (version 1, no header) byte for byte', async () => {
    const fixture = join(import.meta.dirname, '..', 'fixtures', 'side-store-v1');
    const dir = tempDir('restore');
    const r = await restoreCli([fixture, '--out', join(dir, 'back.jsonl')]);
    expect(r).toEqual({ code: 0, stdout: `restore: 1 restored, 1 unchanged, 0 failed, 0 blank lines skipped -> ${join(dir, 'back.jsonl')}\n`, stderr: '' });
    expect(readFileSync(join(dir, 'back.jsonl'), 'utf8')).toBe(readFileSync(join(fixture, 'restored.jsonl'), 'utf8'));
  });

  it('refuses a side store of a newer version than it reads, naming that version', async () => {
    const dir = tempDir('restore');
    const a = archive();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'transcripts.jsonl'), a.lines);
    writeFileSync(join(dir, 'out', 'refs.jsonl'), `{"tcompact":"side-store","v":3}\n${a.refs.join('')}`);
    await expect(restoreCli([join(dir, 'out'), '--out', join(dir, 'back.jsonl')])).rejects.toThrow(
      `${join(dir, 'out', 'refs.jsonl')} is a side store of version 3; this tcompact reads versions 1 to 2`,
    );
    writeFileSync(join(dir, 'out', 'refs.jsonl'), `${SIDE_STORE_HEADER}${a.refs.join('')}`);
    expect((await restoreCli([join(dir, 'out'), '--out', join(dir, 'back.jsonl')])).code).toBe(0);
    expect(readFileSync(join(dir, 'back.jsonl'), 'utf8')).toBe(a.expected);
  });

  it('requires --out and exactly one input', async () => {
    await expect(restoreCli(['x.jsonl'])).rejects.toThrow('restore: --out FILE is required');
    await expect(restoreCli(['a', 'b', '--out', 'o'])).rejects.toThrow('restore: give exactly one compacted archive');
  });
});
