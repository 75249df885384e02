// What a compaction worker costs, from the compiled dist/ (needs `npm run build`), one thread, no pool:
//
// `node bench/worker-costs.mjs start [--runs N] [--dist DIR]`: the worker entry's modules (how many, by package) and the CPU of
//   loading them, each run in a fresh process (the work each pool thread repeats when it starts).
// `node bench/worker-costs.mjs shard FILE [--no-refs] [--tokenizer NAME] [--alloc] [--profile [--profile-out F]] [--dist DIR]`: the worker's shard run
//   over the whole FILE as one range shard (`auto`, heuristic counting unless --tokenizer names another), its CPU per input MB and, with --alloc, the bytes allocated per input
//   byte by function (V8's sampling heap profiler, objects already collected included; a builtin is named with its
//   caller); with --profile, that CPU split by area, source file and function in proportion to V8's CPU profiler
//   samples (500 µs; --profile-out F also writes the profile to F, for its line ticks), Node's internals and builtins
//   (JSON.parse, a regex, a hash) counted in their caller's file. Profiling slows the run by a third or more: take the
//   shares from a profiled run, and CPU per MB from runs without it.
// `node bench/worker-costs.mjs refs-cost FILE [--pairs N] [--dist DIR]`: what the side store costs, in ms of CPU per input
//   MB, measured in one process: FILE cut into range shards of the run's size, each shard run and handed to the run's
//   ordered writer (which writes the merged files, refs.jsonl included, syncs them and frees the outputs), once with
//   refs and once without, in N pairs (ABBA order, after one warm-up pair); per pair the difference, then their median
//   and min-max. The bench's row (end-to-end's refsCost) takes the difference of two whole runs of 35-60 ms/MB, each
//   with its own process and thread starts, module loading and pool scheduling: their noise, a few ms/MB a run on a
//   shared machine, is the size of the figure. Here both sides of a pair run in the same warm process one after the
//   other, with the same code on the same shards: what differs is the side store, the worker's share and the main
//   thread's (writing refs.jsonl), without the start. It leaves out the pool (the outputs' transfer, which moves
//   buffers and copies nothing) and runs the two threads' work on one.
//
// CPU is user + system of this process, in which one thread is busy: less moved by other jobs on the machine than wall
// time, not unmoved (caches and cores are shared). Alternate the runs of two builds to compare them. Allocation does not
// depend on the load.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [command, ...rest] = process.argv.slice(2);
const option = (name) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : undefined;
};
/** `--dist DIR`: another build (a copy of main's dist/, to compare with): its folder needs node_modules beside it. */
const dist = option('--dist') ? pathToFileURL(`${resolve(option('--dist'))}/`) : new URL('../dist/', import.meta.url);
const entry = new URL('workers/compact-worker.js', dist).href;

/** Loads the worker entry and prints the CPU it took; with TCOMPACT_MODULE_LOG set, logs every module loaded there. */
async function loadOnce() {
  const log = process.env.TCOMPACT_MODULE_LOG;
  if (log) {
    const hooks = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
    register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  }
  const started = process.cpuUsage();
  await import(entry);
  const used = process.cpuUsage(started);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000 }));
}

function start() {
  const runs = Number(option('--runs') ?? 5);
  const self = fileURLToPath(import.meta.url);
  const log = join(tmpdir(), `tcompact-worker-modules-${process.pid}.txt`);
  rmSync(log, { force: true });
  execFileSync(process.execPath, [self, 'load-once', ...rest], { env: { ...process.env, TCOMPACT_MODULE_LOG: log } });
  const modules = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((url) => url.startsWith('file:') && !url.endsWith('/worker-costs.mjs'));
  rmSync(log, { force: true });
  const byPackage = {};
  for (const url of modules) {
    const pkg = url.includes('/node_modules/')
      ? url
          .split('/node_modules/')[1]
          .split('/')
          .slice(0, url.includes('/node_modules/@') ? 2 : 1)
          .join('/')
      : 'tcompact';
    byPackage[pkg] = (byPackage[pkg] ?? 0) + 1;
  }
  const cpuMs = [];
  for (let i = 0; i < runs; i++) cpuMs.push(JSON.parse(execFileSync(process.execPath, [self, 'load-once', ...rest]).toString()).cpuMs);
  console.log(JSON.stringify({ modules: modules.length, byPackage, cpuMs: cpuMs.map((ms) => Math.round(ms)) }, null, 1));
}

async function shard() {
  const file = rest[0];
  const alloc = rest.includes('--alloc');
  const { parseCompactConfig } = await import(new URL('src/strategies/compact-config.js', dist).href);
  const { runShard } = await import(new URL('src/pipeline/worker/run-shard.js', dist).href);
  const config = parseCompactConfig({ strategies: ['auto'], tokenizer: option('--tokenizer') ?? 'heuristic', refs: !rest.includes('--no-refs') });
  const size = statSync(file).size;
  const task = {
    shard: { kind: 'range', index: 0, file, start: 0, end: size, firstLine: 1, lines: 0 },
    job: { config, configHash: 'worker-costs', maxLineBytes: 64 * 1024 * 1024 },
    attempt: 1,
  };
  const profileCpu = rest.includes('--profile');
  const session = alloc || profileCpu ? new Session() : undefined;
  if (session) session.connect();
  if (alloc) {
    const sampling = { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await session.post('HeapProfiler.startSampling', sampling);
  }
  if (profileCpu) {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
  }
  const started = process.cpuUsage();
  const outcome = await runShard(task);
  const used = process.cpuUsage(started);
  if (!outcome.ok) throw new Error(outcome.error.message);
  const result = { mb: size / 1e6, cpuMsPerMB: (used.user + used.system) / 1000 / (size / 1e6) };
  if (profileCpu) Object.assign(result, cpuBuckets((await session.post('Profiler.stop')).profile, result.cpuMsPerMB, option('--profile-out')));
  if (alloc) {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const byFunction = {};
    let total = 0;
    const label = (node) =>
      `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
    const walk = (node, caller) => {
      const builtin = node.callFrame.url === '';
      const name = builtin && caller ? `${node.callFrame.functionName} <- ${caller}` : label(node);
      total += node.selfSize;
      byFunction[name] = (byFunction[name] ?? 0) + node.selfSize;
      for (const child of node.children) walk(child, builtin ? caller : label(node));
    };
    walk(profile.head, undefined);
    result.allocatedBytesPerInputByte = total / size;
    result.top = Object.entries(byFunction)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, bytes]) => `${(bytes / size).toFixed(3)} ${name}`);
  }
  console.log(JSON.stringify(result, null, 1));
}

/**
 * The run's CPU per input MB split by area (a folder of src/, a package), by source file and by function, in
 * proportion to the profiler's samples (not their time stamps, which count wall time: on a loaded machine the thread
 * waits between samples); idle samples and the profiler's own are left out. Node's internals and V8's builtins count
 * in their nearest caller with a source file (a hash's update in the line reader, a decode in the line reader); C++
 * builtins such as JSON.parse and JSON.stringify have no frame of their own in V8's profiles and count in their caller.
 */
function cpuBuckets(profile, cpuMsPerMB, outFile) {
  if (outFile) writeFileSync(outFile, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const samples = new Map();
  for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
  const where = ({ callFrame: { url } }) =>
    url.startsWith(dist.href) ? `dist/${url.slice(dist.href.length)}` : url.replace(/^.*\/node_modules\//, 'node_modules/');
  const areaOf = (file) =>
    file.startsWith('dist/src/')
      ? file.split('/').slice(0, -1).join('/')
      : file.startsWith('node_modules/')
        ? file
            .split('/')
            .slice(0, file.startsWith('node_modules/@') ? 3 : 2)
            .join('/')
        : file;
  const tables = { byArea: {}, byFile: {}, byFunction: {} };
  let total = 0;
  const walk = (node, caller) => {
    const { url, functionName } = node.callFrame;
    const own = url.startsWith('file:');
    const label = own ? `${functionName || '(anonymous)'} ${where(node)}:${node.callFrame.lineNumber + 1}` : undefined;
    const file = own ? where(node) : (caller?.file ?? (url || functionName));
    const name = own ? label : caller ? `${functionName || '(anonymous)'} <- ${caller.label}` : functionName;
    const n = samples.get(node.id) ?? 0;
    if (n > 0 && file !== '(idle)' && url !== 'node:inspector') {
      total += n;
      for (const [table, key] of [
        ['byArea', areaOf(file)],
        ['byFile', file],
        ['byFunction', name],
      ])
        tables[table][key] = (tables[table][key] ?? 0) + n;
    }
    for (const id of node.children ?? []) walk(byId.get(id), own ? { file, label } : caller);
  };
  walk(profile.nodes[0], undefined);
  const top = (table, n) =>
    Object.entries(table)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => `${((count / total) * cpuMsPerMB).toFixed(2)} ${name}`);
  return {
    samples: total,
    cpuMsPerMBByArea: top(tables.byArea, 30),
    cpuMsPerMBByFile: top(tables.byFile, 40),
    cpuMsPerMBByFunction: top(tables.byFunction, 60),
  };
}

/** FILE's range shards of `shardBytes` each, cut at line ends as the planner cuts them. */
function rangeShards(file, shardBytes) {
  const data = readFileSync(file);
  const shards = [];
  let start = 0;
  let firstLine = 1;
  while (start < data.length) {
    const nl = data.indexOf(10, Math.min(start + shardBytes, data.length) - 1);
    const end = nl === -1 ? data.length : nl + 1;
    let lines = 0;
    for (let at = data.indexOf(10, start); at !== -1 && at < end; at = data.indexOf(10, at + 1)) lines++;
    if (end === data.length && data[end - 1] !== 10) lines++;
    shards.push({ kind: 'range', index: shards.length, file, start, end, firstLine, lines });
    firstLine += lines;
    start = end;
  }
  return shards;
}

async function refsCost() {
  const file = resolve(rest[0]);
  const pairs = Number(option('--pairs') ?? 9);
  const load = (path) => import(new URL(path, dist).href);
  const { parseCompactConfig } = await load('src/strategies/compact-config.js');
  const { runShard } = await load('src/pipeline/worker/run-shard.js');
  const { DEFAULT_SHARD_BYTES } = await load('src/pipeline/job/capacity.js');
  const { Journal } = await load('src/pipeline/store/journal.js');
  const { OrderedWriter, runFinalPaths } = await load('src/pipeline/store/ordered-writer.js');
  const shards = rangeShards(file, DEFAULT_SHARD_BYTES);
  const mb = statSync(file).size / 1e6;
  const jobs = [true, false].map((refs) => ({
    config: parseCompactConfig({ strategies: ['auto'], tokenizer: 'heuristic', refs }),
    configHash: `worker-costs-refs-${refs}`,
    maxLineBytes: 64 * 1024 * 1024,
  }));
  /** CPU ms per MB of one run over every shard, its outputs written as a run writes them. */
  const runOnce = async (refs) => {
    const job = jobs[refs ? 0 : 1];
    const dir = mkdtempSync(join(tmpdir(), 'tcompact-refs-cost-'));
    try {
      const started = process.cpuUsage();
      const journal = await Journal.create(dir, { settings: {}, settingsHash: 'refs-cost', inputs: [] });
      const writer = await OrderedWriter.open(dir, refs, () => undefined, runFinalPaths(dir), { journal, releaseSettled: true });
      for (const shard of shards) {
        const outcome = await runShard({ shard, job, attempt: 1 });
        if (!outcome.ok) throw new Error(outcome.error.message);
        await writer.settle(shard, outcome.value, false);
      }
      await writer.finish('{}\n', '');
      await journal.close();
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000 / mb;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  await runOnce(true);
  await runOnce(false);
  const differences = [];
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? [true, false] : [false, true];
    const cpu = {};
    for (const refs of order) cpu[refs] = await runOnce(refs);
    differences.push(cpu.true - cpu.false);
  }
  const sorted = [...differences].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  console.log(
    JSON.stringify({
      mb: round(mb),
      shards: shards.length,
      pairs,
      refsCostMsPerMB: round(median),
      min: round(sorted[0]),
      max: round(sorted.at(-1)),
      differences: differences.map(round),
    }),
  );
}

if (command === 'load-once') await loadOnce();
else if (command === 'start') start();
else if (command === 'shard' && rest[0]) await shard();
else if (command === 'refs-cost' && rest[0]) await refsCost();
else {
  console.error(
    'usage: worker-costs.mjs start [--runs N] | shard FILE [--no-refs] [--tokenizer NAME] [--alloc] [--profile [--profile-out F]] [--dist DIR] | refs-cost FILE [--pairs N] [--dist DIR]',
  );
  process.exitCode = 2;
}
