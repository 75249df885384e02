import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

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
}

export interface FakeServer {
  /** Base URL for the OpenAI SDK, ending in /v1. */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const SECTIONS = [
  'Goals and constraints',
  'Timeline and decisions',
  'Technical context',
  'Files and code changes',
  'Errors and fixes',
  'All user messages',
  'Pending tasks',
  'Current work',
  'Next step',
];

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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeOpenAI(options: FakeServerOptions = {}): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function completion(body: ChatBody, content: string, index: number, record: RecordedRequest): unknown {
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', code: null } });
      return;
    }
    const raw = await readBody(req);
    const body = JSON.parse(raw) as ChatBody;
    const index = requests.length;
    const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
    const base = { index, at: Date.now(), path, body, promptChars };
    let fault: Fault = options.script?.(base) ?? options.faults?.[index] ?? { kind: 'ok' };
    if (fault.kind === 'ok' && options.maxPromptChars !== undefined && promptChars > options.maxPromptChars) fault = { kind: 'context_length_exceeded' };
    const record: RecordedRequest = { ...base, fault: fault.kind };
    requests.push(record);
    const headers = options.headers?.(index) ?? {};
    const reply = (status: number, payload: unknown, replyHeaders: Record<string, string> = {}, contentType?: string): void => {
      send(res, status, payload, replyHeaders, contentType);
      record.answeredAt = Date.now();
    };
    switch (fault.kind) {
      case 'ok': {
        let content: string;
        if (isTangentRequest(body)) {
          const turns = (body.messages[1]?.content.match(/^=== Turn \d+ ===$/gm) ?? []).length;
          content = JSON.stringify({ tangents: options.tangents?.(turns, body) ?? [] });
        } else {
          content = deterministicSummary(body);
        }
        reply(200, completion(body, content, index, record), headers);
        return;
      }
      case 'text':
        reply(200, completion(body, fault.text, index, record), headers);
        return;
      case 'empty':
        reply(200, completion(body, '', index, record), headers);
        return;
      case 'malformed':
        reply(200, completion(body, 'Here is a short summary: the user asked for things and the agent did them.', index, record), headers);
        return;
      case 'garbage':
        reply(200, fault.body ?? '<html>502 Bad Gateway</html>', headers, fault.contentType ?? 'text/plain');
        return;
      case 'rate_limit': {
        const h: Record<string, string> = { ...headers };
        if (fault.retryAfter !== undefined) h['retry-after'] = fault.retryAfter;
        if (fault.retryAfterMs !== undefined) h['retry-after-ms'] = fault.retryAfterMs;
        reply(429, { error: { message: 'Rate limit reached for requests', type: 'requests', code: fault.code ?? 'rate_limit_exceeded' } }, h);
        return;
      }
      case 'status':
        reply(
          fault.status,
          { error: { message: `injected status ${fault.status}`, type: 'server_error', code: fault.code ?? null } },
          { ...headers, ...fault.headers },
        );
        return;
      case 'context_length_exceeded':
        reply(400, {
          error: {
            message: `This model's maximum context length is exceeded: your messages hold ${promptChars} characters.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        });
        return;
      case 'hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err), type: 'server_error', code: null } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
