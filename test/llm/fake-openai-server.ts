import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { SUMMARY_SECTIONS } from '../../src/strategies/llm/prompts.js';

/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the Chat Completions API (POST /v1/chat/completions and
 * /chat/completions) with scriptable faults, for tests without network. It records every request (time, body), and
 * its answers are built deterministically from the request, so a run against it is reproducible.
 */

export type Fault =
  /** A deterministic summary (or tangent list) built from the request. */
  | { kind: 'ok' }
  /** 200 with this exact assistant text. */
  | { kind: 'text'; text: string }
  /** 429; `retryAfter` is the Retry-After header as is (seconds or an HTTP date), `retryAfterMs` the retry-after-ms header. */
  | { kind: 'rate_limit'; retryAfter?: string; retryAfterMs?: string; code?: string }
  /** Any status with an OpenAI-style error body. */
  | { kind: 'status'; status: number; code?: string; headers?: Record<string, string> }
  /** Never answers (until the client gives up or the server closes). */
  | { kind: 'hang' }
  /** 400 with error.code `context_length_exceeded`. */
  | { kind: 'context_length_exceeded' }
  /** 200, a completion whose content is ''. */
  | { kind: 'empty' }
  /** 200 with a body that is not a chat completion (`text/plain` by default). */
  | { kind: 'garbage'; body?: string; contentType?: string }
  /** 200, a completion whose text is prose without the required sections. */
  | { kind: 'malformed' };

export interface RecordedRequest {
  index: number;
  /** Date.now() when the request arrived. */
  at: number;
  path: string;
  body: ChatBody;
  /** Characters of all message contents: what `maxPromptChars` compares. */
  promptChars: number;
  fault: Fault['kind'];
  /** Date.now() when the answer was sent; undefined while the request hangs. */
  answeredAt?: number;
  /** The usage the answer reported (200 completions only; absent with `omitUsage`). */
  usage?: { promptTokens: number; completionTokens: number };
}

export interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
}

export interface FakeServerOptions {
  /** Faults for the first requests, in order; requests after them get `ok`. */
  faults?: Fault[];
  /** Decides each request's fault (wins over `faults`); return undefined for the default. */
  script?: (request: Omit<RecordedRequest, 'fault'>) => Fault | undefined;
  /** Answer context_length_exceeded when the messages hold more characters than this. */
  maxPromptChars?: number;
  /** Headers added to every answer (e.g. x-ratelimit-*), by request index. */
  headers?: (index: number) => Record<string, string>;
  /** The answer to a classify-tangents request: turn numbers and reasons. @default none */
  tangents?: (turns: number, body: ChatBody) => { turn: number; reason: string }[];
  /** Leave `usage` out of answers (as some local servers do). */
  omitUsage?: boolean;
  /** Faults of the Batch API, by batch (see {@link BatchFault}); batches after them run normally. */
  batchFaults?: BatchFault[];
  /** Decides the fault of each line of a batch (a non-2xx fault goes to the error file); default `ok`. */
  batchLineScript?: (line: { batch: number; line: number; customId: string; body: ChatBody }) => Fault | undefined;
  /** Port on 127.0.0.1. @default 0 (any free port) */
  port?: number;
  /** Called when a batch is created (a kill test signals the client from here). */
  onBatchCreated?: (batch: FakeBatch) => void;
}

/** How one batch ends; the status always moves validating, in_progress, finalizing, then the end, one step per poll. */
export type BatchFault =
  | { kind: 'none' }
  /** Validation fails: status `failed` with an error, no output. */
  | { kind: 'failed'; message?: string }
  /** Only the first `answered` lines are processed; the batch ends as `expired`. */
  | { kind: 'expired'; answered: number }
  /** The first `count` polls of the batch answer this 5xx status. */
  | { kind: 'poll_errors'; count: number; status?: number };

export interface FakeBatch {
  id: string;
  index: number;
  inputFileId: string;
  endpoint: string;
  completionWindow: string;
  metadata: Record<string, string> | null;
  status: 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';
  /** The input lines, as uploaded. */
  lines: { custom_id: string; method: string; url: string; body: ChatBody }[];
  outputFileId: string | null;
  errorFileId: string | null;
  counts: { total: number; completed: number; failed: number };
  /** GET /v1/batches/:id calls so far, failed ones included. */
  polls: number;
}

export interface FakeFile {
  id: string;
  purpose: string;
  filename: string;
  content: Buffer;
}

export interface FakeServer {
  /** Base URL for the OpenAI SDK, ending in /v1. */
  baseURL: string;
  /** Chat requests answered online (batch lines are not in it). */
  requests: RecordedRequest[];
  /** Batches created, in order. */
  batches: FakeBatch[];
  /** Files uploaded or produced, by id. */
  files: Map<string, FakeFile>;
  close(): Promise<void>;
}

const SECTIONS = SUMMARY_SECTIONS.map((s) => s.title);

interface Block {
  n: number;
  role: string;
  header: string;
  text: string;
}

function blocksOf(rendered: string): Block[] {
  const blocks: Block[] = [];
  const re = /^\[#(\d+) (\w+)([^\]\n]*)\]([^\n]*)$/gm;
  const heads = [...rendered.matchAll(re)];
  for (let i = 0; i < heads.length; i++) {
    const h = heads[i];
    const start = (h.index ?? 0) + h[0].length;
    const end = i + 1 < heads.length ? (heads[i + 1].index ?? rendered.length) : rendered.length;
    blocks.push({ n: Number(h[1]), role: h[2], header: h[0], text: rendered.slice(start, end).trim() });
  }
  return blocks;
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

/** A summary with every required section, built only from the request: same request, same summary. */
export function deterministicSummary(body: ChatBody): string {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const rendered = user.slice(user.indexOf('<transcript>') + '<transcript>'.length, user.lastIndexOf('</transcript>'));
  const blocks = blocksOf(rendered);
  const users = blocks.filter((b) => b.role === 'user');
  const assistants = blocks.filter((b) => b.role === 'assistant');
  const tools = blocks.filter((b) => b.role === 'tool');
  const paths = [...new Set(rendered.match(/(?:\/[\w.-]+){2,}/g) ?? [])].slice(0, 8);
  const errors = tools.filter((b) => b.header.includes('(error)')).length;
  const range = blocks.length > 0 ? `#${blocks[0].n}-#${blocks[blocks.length - 1].n}` : 'none';
  const body_: Record<string, string> = {
    'Goals and constraints': users.length > 0 ? firstLine(users[0].text, 160) : 'None.',
    'Timeline and decisions': `Messages ${range}: ${users.length} user, ${assistants.length} assistant, ${tools.length} tool results.`,
    'Technical context': `${tools.length} tool results were read.`,
    'Files and code changes': paths.length > 0 ? paths.map((p) => `- ${p}`).join('\n') : 'None.',
    'Errors and fixes': errors > 0 ? `${errors} tool errors.` : 'None.',
    'All user messages': users.length > 0 ? users.map((u) => `- ${firstLine(u.text, 120)}`).join('\n') : 'None.',
    'Pending tasks': 'None.',
    'Current work': assistants.length > 0 ? firstLine(assistants[assistants.length - 1].text, 120) || 'Tool calls.' : 'None.',
    'Next step': users.length > 0 ? firstLine(users[users.length - 1].text, 120) : 'None.',
  };
  return SECTIONS.map((s) => `## ${s}\n${body_[s]}`).join('\n\n');
}

function isTangentRequest(body: ChatBody): boolean {
  return body.messages.some((m) => m.role === 'system' && m.content.includes('Decide which turns are tangents'));
}

function promptTokensOf(body: ChatBody): number {
  let n = 3;
  for (const m of body.messages) n += 3 + countTokens(m.content);
  return n;
}

function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

export async function startFakeOpenAI(options: FakeServerOptions = {}): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function completion(body: ChatBody, content: string, index: number, record: Pick<RecordedRequest, 'usage'>): unknown {
    const out: Record<string, unknown> = {
      id: `chatcmpl-fake-${index}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    };
    if (!options.omitUsage) {
      const completionTokens = countTokens(content);
      const promptTokens = promptTokensOf(body);
      out.usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      record.usage = { promptTokens, completionTokens };
    }
    return out;
  }

  interface Reply {
    status: number;
    payload: unknown;
    headers?: Record<string, string>;
    contentType?: string;
  }

  /** The answer to one chat request under a fault: the same for an online request and a batch line. */
  function answer(body: ChatBody, fault: Fault, index: number, record: Pick<RecordedRequest, 'usage'>, headers: Record<string, string>): Reply | 'hang' {
    const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
    switch (fault.kind) {
      case 'ok': {
        let content: string;
        if (isTangentRequest(body)) {
          const turns = (body.messages[1]?.content.match(/^=== Turn \d+ ===$/gm) ?? []).length;
          content = JSON.stringify({ tangents: options.tangents?.(turns, body) ?? [] });
        } else {
          content = deterministicSummary(body);
        }
        return { status: 200, payload: completion(body, content, index, record), headers };
      }
      case 'text':
        return { status: 200, payload: completion(body, fault.text, index, record), headers };
      case 'empty':
        return { status: 200, payload: completion(body, '', index, record), headers };
      case 'malformed':
        return {
          status: 200,
          payload: completion(body, 'Here is a short summary: the user asked for things and the agent did them.', index, record),
          headers,
        };
      case 'garbage':
        return { status: 200, payload: fault.body ?? '<html>502 Bad Gateway</html>', headers, contentType: fault.contentType ?? 'text/plain' };
      case 'rate_limit': {
        const h: Record<string, string> = { ...headers };
        if (fault.retryAfter !== undefined) h['retry-after'] = fault.retryAfter;
        if (fault.retryAfterMs !== undefined) h['retry-after-ms'] = fault.retryAfterMs;
        return {
          status: 429,
          payload: { error: { message: 'Rate limit reached for requests', type: 'requests', code: fault.code ?? 'rate_limit_exceeded' } },
          headers: h,
        };
      }
      case 'status':
        return {
          status: fault.status,
          payload: { error: { message: `injected status ${fault.status}`, type: 'server_error', code: fault.code ?? null } },
          headers: { ...headers, ...fault.headers },
        };
      case 'context_length_exceeded':
        return {
          status: 400,
          payload: {
            error: {
              message: `This model's maximum context length is exceeded: your messages hold ${promptChars} characters.`,
              type: 'invalid_request_error',
              param: 'messages',
              code: 'context_length_exceeded',
            },
          },
        };
      case 'hang':
        return 'hang';
    }
  }

  async function handleChat(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const raw = await readBody(req);
    const body = JSON.parse(raw) as ChatBody;
    const index = requests.length;
    const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
    const base = { index, at: Date.now(), path, body, promptChars };
    let fault: Fault = options.script?.(base) ?? options.faults?.[index] ?? { kind: 'ok' };
    if (fault.kind === 'ok' && options.maxPromptChars !== undefined && promptChars > options.maxPromptChars) fault = { kind: 'context_length_exceeded' };
    const record: RecordedRequest = { ...base, fault: fault.kind };
    requests.push(record);
    const reply = answer(body, fault, index, record, options.headers?.(index) ?? {});
    if (reply === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    send(res, reply.status, reply.payload, reply.headers, reply.contentType);
    record.answeredAt = Date.now();
  }

  /* ---------- the Batch API ---------- */

  const batches: FakeBatch[] = [];
  const files = new Map<string, FakeFile>();
  let batchLinesSeen = 0;

  function addFile(purpose: string, filename: string, content: Buffer): FakeFile {
    const file = { id: `file-fake-${files.size + 1}`, purpose, filename, content };
    files.set(file.id, file);
    return file;
  }

  function fileObject(f: FakeFile): unknown {
    return { id: f.id, object: 'file', bytes: f.content.length, created_at: 0, filename: f.filename, purpose: f.purpose, status: 'processed' };
  }

  function batchObject(b: FakeBatch): unknown {
    const fault = options.batchFaults?.[b.index];
    return {
      id: b.id,
      object: 'batch',
      endpoint: b.endpoint,
      input_file_id: b.inputFileId,
      completion_window: b.completionWindow,
      status: b.status,
      created_at: 0,
      output_file_id: b.outputFileId,
      error_file_id: b.errorFileId,
      errors:
        b.status === 'failed'
          ? {
              object: 'list',
              data: [{ code: 'invalid_request', message: fault?.kind === 'failed' ? (fault.message ?? 'injected failure') : 'failed', line: null }],
            }
          : null,
      request_counts: b.counts,
      metadata: b.metadata,
    };
  }

  /** Answers the batch's lines (the first `limit` of them) into an output and an error file. */
  function processBatch(b: FakeBatch, limit: number): void {
    const out: string[] = [];
    const errors: string[] = [];
    for (let i = 0; i < Math.min(limit, b.lines.length); i++) {
      const line = b.lines[i];
      const fault = options.batchLineScript?.({ batch: b.index, line: i, customId: line.custom_id, body: line.body }) ?? { kind: 'ok' };
      const promptChars = line.body.messages.reduce((n, m) => n + m.content.length, 0);
      const effective: Fault =
        fault.kind === 'ok' && options.maxPromptChars !== undefined && promptChars > options.maxPromptChars ? { kind: 'context_length_exceeded' } : fault;
      const reply = answer(line.body, effective.kind === 'hang' ? { kind: 'status', status: 500 } : effective, batchLinesSeen++, {}, {});
      if (reply === 'hang') continue;
      const response = { status_code: reply.status, request_id: `req-fake-${b.index}-${i}`, body: reply.payload };
      const entry = JSON.stringify({ id: `batch_req_${b.index}_${i}`, custom_id: line.custom_id, response, error: null });
      if (reply.status >= 200 && reply.status < 300) {
        out.push(entry);
        b.counts.completed++;
      } else {
        errors.push(entry);
        b.counts.failed++;
      }
    }
    if (out.length > 0) b.outputFileId = addFile('batch_output', `${b.id}_output.jsonl`, Buffer.from(out.map((l) => `${l}\n`).join(''))).id;
    if (errors.length > 0) b.errorFileId = addFile('batch_output', `${b.id}_error.jsonl`, Buffer.from(errors.map((l) => `${l}\n`).join(''))).id;
  }

  /** One poll: the status moves one step (validating, in_progress, finalizing, then how the batch ends). */
  function advance(b: FakeBatch): void {
    const fault = options.batchFaults?.[b.index] ?? { kind: 'none' };
    switch (b.status) {
      case 'validating':
        if (fault.kind === 'failed') b.status = 'failed';
        else b.status = 'in_progress';
        return;
      case 'in_progress':
        if (fault.kind === 'expired') {
          processBatch(b, fault.answered);
          b.status = 'expired';
        } else b.status = 'finalizing';
        return;
      case 'finalizing':
        processBatch(b, b.lines.length);
        b.status = 'completed';
        return;
      case 'cancelling':
        b.status = 'cancelled';
        return;
      default:
        return;
    }
  }

  async function handleBatchApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET';
    const notFound = (what: string) => send(res, 404, { error: { message: `no such ${what}`, type: 'invalid_request_error', code: null } });
    if (method === 'POST' && path === '/v1/files') {
      const raw = await readBodyBytes(req);
      const form = await new Request('http://fake/v1/files', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: new Uint8Array(raw),
      }).formData();
      const upload = form.get('file');
      if (!upload || typeof upload === 'string') {
        send(res, 400, { error: { message: 'no file', type: 'invalid_request_error', code: null } });
        return true;
      }
      const file = addFile(String(form.get('purpose') ?? ''), upload.name, Buffer.from(await upload.arrayBuffer()));
      send(res, 200, fileObject(file));
      return true;
    }
    let m = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(path);
    if (m && method === 'GET') {
      const file = files.get(m[1]);
      if (!file) notFound('file');
      else if (m[2]) send(res, 200, file.content.toString('utf8'), {}, 'application/octet-stream');
      else send(res, 200, fileObject(file));
      return true;
    }
    if (path === '/v1/batches' && method === 'POST') {
      const body = JSON.parse((await readBodyBytes(req)).toString('utf8')) as {
        input_file_id: string;
        endpoint: string;
        completion_window: string;
        metadata?: Record<string, string>;
      };
      const input = files.get(body.input_file_id);
      if (!input) {
        notFound('file');
        return true;
      }
      const lines = input.content
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as FakeBatch['lines'][number]);
      const batch: FakeBatch = {
        id: `batch_fake_${batches.length + 1}`,
        index: batches.length,
        inputFileId: input.id,
        endpoint: body.endpoint,
        completionWindow: body.completion_window,
        metadata: body.metadata ?? null,
        status: 'validating',
        lines,
        outputFileId: null,
        errorFileId: null,
        counts: { total: lines.length, completed: 0, failed: 0 },
        polls: 0,
      };
      batches.push(batch);
      send(res, 200, batchObject(batch));
      options.onBatchCreated?.(batch);
      return true;
    }
    if (path === '/v1/batches' && method === 'GET') {
      send(res, 200, { object: 'list', data: [...batches].reverse().map(batchObject), first_id: null, last_id: null, has_more: false });
      return true;
    }
    m = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (m) {
      const batch = batches.find((b) => b.id === m?.[1]);
      if (!batch) {
        notFound('batch');
        return true;
      }
      if (m[2] && method === 'POST') {
        if (['validating', 'in_progress', 'finalizing'].includes(batch.status)) batch.status = 'cancelling';
        send(res, 200, batchObject(batch));
        return true;
      }
      if (method === 'GET') {
        batch.polls++;
        const fault = options.batchFaults?.[batch.index];
        if (fault?.kind === 'poll_errors' && batch.polls <= fault.count) {
          send(res, fault.status ?? 503, { error: { message: 'injected poll failure', type: 'server_error', code: null } });
          return true;
        }
        advance(batch);
        send(res, 200, batchObject(batch));
        return true;
      }
    }
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) {
      await handleChat(req, res, path);
      return;
    }
    if (await handleBatchApi(req, res, path)) return;
    send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', code: null } });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err), type: 'server_error', code: null } });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    batches,
    files,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
