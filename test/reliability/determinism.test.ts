import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findViolations } from '../../src/model/validity.js';
import type { Transcript } from '../../src/model/transcript.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { claudeCodeWithLongSessionHead } from '../helpers/long-session.js';
import { BUNDLED, outputDigest, readJsonl, readReport, tempDir, writeRealArchive } from '../pipeline/helpers.js';

/** RELIABILITY 21 and 22 (worker counts, reproducibility), 10 (idempotence), 9 (duplicate ids), 8 (repairs). */
const dir = tempDir('determinism');
const archive = join(dir, 'real.jsonl');
const auto = parseCompactConfig({ strategies: ['auto'] });
const SHARD_BYTES = 16 * 1024;

beforeAll(async () => {
  // Real transcripts of every bundled source (Claude Code sessions, tau-bench, SWE-agent, OpenHands): every fourth one of
  // the first 120 as an archive of about a quarter of a MB, cut into 16 KB shards, more than eight of them, so eight
  // workers all have work and finish out of order.
  const lines = await writeRealArchive(archive, { count: 120, maxLineBytes: 100_000 });
  writeFileSync(
    archive,
    lines
      .filter((_, i) => i % 4 === 0)
      .map((l) => `${l}\n`)
      .join(''),
  );
});

/**
 * The bundled directory with every format's files, its two large ones cut (each costs seconds per run and shows no
 * shape the rest of it lacks): the long Claude Code session to its first 400 lines (with its subagents' folder), and
 * the tau-bench trajectories to their first 30 tasks, more than one shard of 20 items.
 */
function bundledCut(): string {
  const out = tempDir('determinism-bundled');
  for (const name of ['aider', 'openhands', 'swe-agent']) cpSync(join(BUNDLED, name), join(out, name), { recursive: true });
  claudeCodeWithLongSessionHead(join(out, 'claude-code'), 400);
  mkdirSync(join(out, 'tau-bench'));
  const tau = JSON.parse(readFileSync(join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json'), 'utf8')) as unknown[];
  writeFileSync(join(out, 'tau-bench', 'gpt-4o-airline.json'), JSON.stringify(tau.slice(0, 30), null, 2));
  return out;
}

/**
 * The archive compacted on `workers` threads, made once: the worker-count test compares the three, and the idempotence
 * test compacts the one-thread output again (a run of its own would cost as much again).
 */
const archiveRuns = new Map<number, Promise<string>>();
function archiveRun(workers: number): Promise<string> {
  let run = archiveRuns.get(workers);
  if (!run) {
    const out = join(dir, `archive-w${workers}`);
    run = runPipeline({ inputs: [archive], outDir: out, config: auto, workers, shardBytes: SHARD_BYTES }).then((outcome) => {
      expect(outcome.status).toBe('done');
      return out;
    });
    archiveRuns.set(workers, run);
  }
  return run;
}

describe('1, 2 and 8 workers (RELIABILITY 21, 22)', () => {
  it('write byte-identical transcripts, errors, refs and report (timings aside) for a canonical archive', async () => {
    const digests = [];
    for (const workers of [1, 2, 8]) {
      const out = await archiveRun(workers);
      expect(readReport(out).execution.shards).toBeGreaterThan(8);
      digests.push(outputDigest(out));
    }
    expect(digests[1]).toEqual(digests[0]);
    expect(digests[2]).toEqual(digests[0]);
  });

  it('write byte-identical output for the bundled directory read through the format adapters, in this thread or on a pool', async () => {
    const bundled = bundledCut();
    const digests = [];
    for (const run of [{ inProcess: true }, { workers: 2 }]) {
      const out = tempDir('determinism');
      await runPipeline({ inputs: [bundled], outDir: out, config: auto, shardBytes: 128 * 1024, maxItemsPerShard: 20, ...run });
      const report = readReport(out);
      // Each source's transcripts, tau-bench's in two shards at least.
      expect(report.execution.shards).toBeGreaterThan(6);
      digests.push(outputDigest(out));
    }
    expect(digests[1]).toEqual(digests[0]);
  });
});

describe('idempotence (RELIABILITY 10)', () => {
  it('compacting an already compacted archive changes nothing more', async () => {
    const first = await archiveRun(1);
    expect(readReport(first).tokens.saved).toBeGreaterThan(0);
    // Every other transcript of the compacted archive, compacted again.
    const original = readFileSync(archive, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const output = readFileSync(join(first, 'transcripts.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(output).toHaveLength(original.length);
    const compacted = output.filter((_, i) => i % 2 === 0);
    expect(compacted).not.toEqual(original.filter((_, i) => i % 2 === 0));
    const input = join(dir, 'compacted.jsonl');
    writeFileSync(input, compacted.map((l) => `${l}\n`).join(''));
    const again = tempDir('determinism');
    await runPipeline({ inputs: [input], outDir: again, config: auto, inProcess: true });
    expect(readFileSync(join(again, 'transcripts.jsonl'))).toEqual(readFileSync(input));
    expect(readReport(again).tokens.saved).toBe(0);
  });
});

describe('duplicates and repairs (RELIABILITY 8, 9)', () => {
  it('flags duplicate transcript ids and still compacts every copy', async () => {
    const line = readFileSync(archive, 'utf8').split('\n')[10];
    const id = (JSON.parse(line) as Transcript).id;
    const path = join(dir, 'dup.jsonl');
    writeFileSync(path, `${line}\n${line}\n`);
    const out = join(dir, 'dup');
    await runPipeline({ inputs: [path], outDir: out, config: auto, inProcess: true });
    expect(readReport(out).duplicateIds).toEqual({ count: 1, examples: [id] });
    expect(readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id)).toEqual([id, id]);
  });

  it('repairs an orphan tool result and a call without a result, counts them, and leaves no pairing violation', async () => {
    const broken = {
      id: 'broken-pairs',
      messages: [
        { role: 'user', content: 'list the files' },
        { role: 'tool', tool_call_id: 'ghost', content: 'result of a call nobody made' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        { role: 'user', content: 'thanks' },
      ],
    };
    const path = join(dir, 'broken.jsonl');
    writeFileSync(path, `${JSON.stringify(broken)}\n`);
    const out = join(dir, 'broken');
    await runPipeline({ inputs: [path], outDir: out, config: auto, inProcess: true });
    const [t] = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    expect(findViolations(t.messages)).toEqual([]);
    const sanitize = (
      JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { strategies: { name: string; details: Record<string, number> }[] }
    ).strategies.find((s) => s.name === 'sanitize');
    expect(sanitize?.details).toMatchObject({ orphanResultDropped: 1, missingResultFilled: 1 });
  });
});
