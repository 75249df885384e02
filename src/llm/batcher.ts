import { TcompactError } from '../errors.js';
import { type BatchApi, type BatchInfo, BATCH_ENDPOINT, isTerminal } from './batch-api.js';
import type { BatchEntry, BatchJournal } from './batch-journal.js';
import { type BatchResult, type UnansweredReason, parseResults, unanswered } from './batch-results.js';
import { type ChatRequest, chatBody } from './client.js';
import type { Clock } from './clock.js';
import type { LlmJob } from './queue.js';

/** One batch as the report lists it. */
interface BatchLine {
  id: string;
  status: string;
  requests: number;
  completed: number;
  failed: number;
}

/** A request the Batch API did not answer, what became of it, and why. */
interface UnansweredRequest {
  customId: string;
  label: string;
  reason: string;
  /** `online`: asked again through the online queue; `fallback`: not asked again (the step fell back). */
  then: 'online' | 'fallback';
}

/** `report.json`'s `llm.batch`. */
export interface BatchRunReport {
  /** Batches created (by this run and the runs it resumed). */
  batches: number;
  /** Requests sent through batches. */
  requests: number;
  /** Requests a batch answered (2xx). */
  completed: number;
  /** Requests in a batch's error file, or in a batch that failed. */
  failed: number;
  /** Requests left unanswered by a batch that expired or was cancelled. */
  expired: number;
  /** Requests the batches did not answer that were asked again through the online queue. */
  retriedOnline: number;
  /** Timing: time spent waiting for batches by this process (ms); keep out of compared files. */
  waitedMs: number;
  list: BatchLine[];
  /** Every request a batch did not answer, with its reason (the first 100; `count` covers all). */
  unanswered: { count: number; examples: UnansweredRequest[] };
}

/** What the progress line shows while a run waits for its batches. */
export interface BatchProgress {
  batches: BatchLine[];
}

interface BatcherOptions {
  model: string;
  maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  pollMs: number;
  maxRequests: number;
  maxBytes: number;
  clock: Clock;
  onProgress?: (progress: BatchProgress) => void;
}

/** Consecutive failed polls (5xx, connection) after which a run gives up waiting; `--resume` picks the batches up again. */
const MAX_POLL_FAILURES = 10;
/** The longest wait between polls after failures. */
const MAX_POLL_BACKOFF_MS = 10 * 60_000;
const MAX_UNANSWERED_EXAMPLES = 100;

/**
 * The Batch API side of an LLM session. While it gathers (see batch-phase.ts), the answerer defers every request it cannot answer from
 * the cache or from collected results here instead of sending it; `submit` writes the deferred requests to batch
 * input files (split at the request and byte limits), uploads them, creates the batches and journals each step before
 * going on; `settle` waits for every outstanding batch (polling, with backoff on errors) and collects its output and
 * error files into the results, by custom_id (the request's cache key, so the same request always has the same id).
 */
export class Batcher {
  private gatherers = 0;
  private readonly deferred = new Map<string, LlmJob>();
  private readonly submitted = new Set<string>();
  private readonly results = new Map<string, BatchResult>();
  private readonly labels = new Map<string, string>();
  private readonly online: UnansweredRequest[] = [];
  private unansweredCount = 0;
  private retried = 0;
  private waitedMs = 0;
  private contextRefusals = 0;

  constructor(
    private readonly api: BatchApi,
    private readonly journal: BatchJournal,
    private readonly options: BatcherOptions,
  ) {}

  /** True while a gathering pass runs: the steps run only to find the requests of a batch, and their output is dropped. */
  get gathering(): boolean {
    return this.gatherers > 0;
  }

  /** Runs `pass` as a gathering pass (requests deferred for a batch, never sent online). */
  async gatherDuring<T>(pass: () => Promise<T>): Promise<T> {
    this.gatherers++;
    try {
      return await pass();
    } finally {
      this.gatherers--;
    }
  }

  /** Reads what earlier runs of this DIR sent and collected. */
  async open(): Promise<void> {
    for (const entry of this.journal.entries) {
      entry.keys.forEach((k, i) => {
        this.submitted.add(k);
        this.labels.set(k, entry.labels[i] ?? '');
      });
      if (entry.collected && entry.batchId) await this.load(entry, entry.batchId);
    }
  }

  /** The batch's outcome for a request, once collected. */
  resultOf(key: string): BatchResult | undefined {
    return this.results.get(key);
  }

  /** Notes a request for the next batch, unless a batch already holds it. */
  defer(key: string, job: LlmJob): void {
    if (!this.submitted.has(key)) this.deferred.set(key, job);
  }

  /** Requests deferred and not submitted yet. */
  get pending(): number {
    return this.deferred.size;
  }

  /** Whether answers collected since the last call refused a prompt as too long: the steps then ask smaller ones. */
  takeContextRefusals(): number {
    const n = this.contextRefusals;
    this.contextRefusals = 0;
    return n;
  }

  /** Records a request the batches did not answer, and what the answerer did about it. */
  noteUnanswered(key: string, reason: string, then: UnansweredRequest['then']): void {
    this.unansweredCount++;
    if (then === 'online') this.retried++;
    if (this.online.length < MAX_UNANSWERED_EXAMPLES) this.online.push({ customId: key, label: this.labels.get(key) ?? '', reason, then });
  }

  /** Sends the deferred requests as new batches; returns how many requests went out. */
  async submit(): Promise<number> {
    // By key, not by arrival: workers finish shards in any order, and the batch files must not depend on it.
    const deferred = [...this.deferred].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const lines = deferred.map(([key, job]) => {
      const body = chatBody(this.options.model, job.request as ChatRequest, this.options.maxTokensParam);
      return { key, label: job.label, bytes: Buffer.from(`${JSON.stringify({ custom_id: key, method: 'POST', url: BATCH_ENDPOINT, body })}\n`, 'utf8') };
    });
    this.deferred.clear();
    let sent = 0;
    let group: typeof lines = [];
    let groupBytes = 0;
    const flush = async (): Promise<void> => {
      if (group.length === 0) return;
      await this.createBatch(group);
      sent += group.length;
      group = [];
      groupBytes = 0;
    };
    for (const line of lines) {
      // A request larger than a whole batch file cannot go in any: the online queue takes it.
      if (line.bytes.length > this.options.maxBytes) continue;
      if (group.length >= this.options.maxRequests || groupBytes + line.bytes.length > this.options.maxBytes) await flush();
      group.push(line);
      groupBytes += line.bytes.length;
    }
    await flush();
    return sent;
  }

  private async createBatch(group: { key: string; label: string; bytes: Buffer }[]): Promise<void> {
    const n = this.journal.entries.length + 1;
    const inputFileId = await this.call('upload a batch input file', () =>
      this.api.upload(`tcompact-batch-${n}.jsonl`, Buffer.concat(group.map((l) => l.bytes))),
    );
    const entry: BatchEntry = {
      inputFileId,
      batchId: null,
      status: 'uploaded',
      keys: group.map((l) => l.key),
      labels: group.map((l) => l.label),
      counts: { total: group.length, completed: 0, failed: 0 },
      outputFileId: null,
      errorFileId: null,
      errors: null,
      collected: false,
    };
    // Journaled before the batch exists: from here on, these requests are never put in another batch.
    this.journal.entries.push(entry);
    for (const l of group) {
      this.submitted.add(l.key);
      this.labels.set(l.key, l.label);
    }
    await this.journal.save();
    await this.ensureBatch(entry);
  }

  /** Creates the batch of an uploaded file, unless a run killed after creating it left one (found by its input file). */
  private async ensureBatch(entry: BatchEntry): Promise<string> {
    if (entry.batchId) return entry.batchId;
    const info =
      (await this.call('list the batches', () => this.api.findByInputFile(entry.inputFileId))) ??
      (await this.call('create a batch', () => this.api.create(entry.inputFileId, { tcompact_input_file: entry.inputFileId })));
    this.update(entry, info);
    await this.journal.save();
    return info.id;
  }

  /**
   * Waits for every outstanding batch and collects it. With `cancel`, asks the API to cancel them first (their partial
   * output is still collected). Resolves false when `stop` aborted the wait: the batches keep running, and a resume
   * picks them up.
   */
  async settle(stop: AbortSignal, { cancel = false } = {}): Promise<boolean> {
    const outstanding = this.journal.outstanding();
    for (const entry of outstanding) {
      const id = await this.ensureBatch(entry);
      if (cancel && !isTerminal(entry.status as BatchInfo['status'])) {
        this.update(entry, await this.call('cancel a batch', () => this.api.cancel(id)));
        await this.journal.save();
      }
    }
    const started = this.options.clock.now();
    let failures = 0;
    try {
      for (;;) {
        const open = outstanding.filter((e) => !isTerminal(e.status as BatchInfo['status']));
        let failed = false;
        for (const entry of open) {
          try {
            const info = await this.api.retrieve(entry.batchId as string);
            const changed = info.status !== entry.status;
            this.update(entry, info);
            if (changed) await this.journal.save();
          } catch (err) {
            if (!retryablePoll(err)) throw new TcompactError('E_LLM', `cannot poll batch ${entry.batchId}: ${(err as Error).message}`, { cause: err });
            failed = true;
          }
        }
        failures = failed ? failures + 1 : 0;
        if (failures >= MAX_POLL_FAILURES)
          throw new TcompactError(
            'E_LLM',
            `the Batch API failed ${failures} polls in a row; the batches keep running: run again with --resume to pick them up`,
          );
        this.options.onProgress?.({ batches: this.journal.entries.map(lineOf) });
        for (const entry of outstanding) if (isTerminal(entry.status as BatchInfo['status']) && !entry.collected) await this.collect(entry);
        if (outstanding.every((e) => e.collected)) return true;
        if (stop.aborted) return false;
        const wait = failures === 0 ? this.options.pollMs : Math.min(this.options.pollMs * 2 ** failures, MAX_POLL_BACKOFF_MS);
        await this.options.clock.sleep(wait, stop);
        if (stop.aborted) return false;
      }
    } finally {
      this.waitedMs += this.options.clock.now() - started;
    }
  }

  private update(entry: BatchEntry, info: BatchInfo): void {
    entry.batchId = info.id;
    entry.status = info.status;
    entry.counts = info.counts.total > 0 ? info.counts : { ...info.counts, total: entry.keys.length };
    entry.outputFileId = info.outputFileId;
    entry.errorFileId = info.errorFileId;
    entry.errors = info.errors;
  }

  private async collect(entry: BatchEntry): Promise<void> {
    const id = entry.batchId as string;
    for (const [kind, fileId] of [
      ['output', entry.outputFileId],
      ['error', entry.errorFileId],
    ] as const) {
      if (!fileId) continue;
      const content = await this.call(`download the ${kind} file of batch ${id}`, () => this.api.content(fileId));
      await this.journal.saveResults(id, kind, content);
    }
    entry.collected = true;
    const before = this.contextRefusalsIn(entry);
    await this.load(entry, id);
    this.contextRefusals += this.contextRefusalsIn(entry) - before;
    await this.journal.save();
  }

  private contextRefusalsIn(entry: BatchEntry): number {
    let n = 0;
    for (const k of entry.keys) {
      const r = this.results.get(k);
      if (r && !r.ok && r.failure.code === 'context_length_exceeded') n++;
    }
    return n;
  }

  /** Reads a collected batch's files into the results; a request in neither file gets the batch's own outcome. */
  private async load(entry: BatchEntry, id: string): Promise<void> {
    const now = this.options.clock.now();
    for (const kind of ['output', 'error'] as const) {
      const fileId = kind === 'output' ? entry.outputFileId : entry.errorFileId;
      if (!fileId) continue;
      let text = await this.journal.readResults(id, kind);
      if (text === undefined) {
        text = await this.call(`download the ${kind} file of batch ${id}`, () => this.api.content(fileId));
        await this.journal.saveResults(id, kind, text);
      }
      parseResults(text, now, this.results);
    }
    for (const k of entry.keys) if (!this.results.has(k)) this.results.set(k, unanswered(entry.status as BatchInfo['status'], entry.errors));
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new TcompactError('E_LLM', `Batch API: cannot ${what}: ${(err as Error).message}`, { cause: err });
    }
  }

  report(): BatchRunReport {
    let completed = 0;
    let failed = 0;
    let expired = 0;
    const requests = this.journal.entries.reduce((n, e) => n + e.keys.length, 0);
    for (const e of this.journal.entries) {
      for (const k of e.keys) {
        const r = this.results.get(k);
        if (!r) continue;
        if (r.ok) completed++;
        else if (isExpired(r.reason)) expired++;
        else failed++;
      }
    }
    return {
      batches: this.journal.entries.length,
      requests,
      completed,
      failed,
      expired,
      retriedOnline: this.retried,
      waitedMs: Math.round(this.waitedMs),
      list: this.journal.entries.map(lineOf),
      unanswered: { count: this.unansweredCount, examples: [...this.online].sort(byLabelThenId).slice(0, MAX_UNANSWERED_EXAMPLES) },
    };
  }
}

function isExpired(reason: UnansweredReason): boolean {
  return reason === 'expired' || reason === 'cancelled';
}

function lineOf(e: BatchEntry): BatchLine {
  return {
    id: e.batchId ?? `(not created; file ${e.inputFileId})`,
    status: e.status,
    requests: e.keys.length,
    completed: e.counts.completed,
    failed: e.counts.failed,
  };
}

function byLabelThenId(a: UnansweredRequest, b: UnansweredRequest): number {
  if (a.label !== b.label) return a.label < b.label ? -1 : 1;
  return a.customId < b.customId ? -1 : a.customId > b.customId ? 1 : 0;
}

/** A poll that failed on the server's side or on the way (5xx, 429, connection) is tried again later. */
function retryablePoll(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') return status >= 500 || status === 429 || status === 408 || status === 409;
  return true;
}
