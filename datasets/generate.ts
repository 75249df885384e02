/**
 * Seeded, deterministic generator of synthetic canonical archives (JSONL, one transcript per line) for benchmarks at
 * sizes the real datasets do not reach. The shape is modelled on the real Claude Code sessions in
 * `../shared/datasets/spotter` (tool mix, output sizes, read patterns); see the figures next to each constant.
 *
 * Same options -> byte-identical output. Transcript i depends only on (seed, i), except the last one, which is cut to
 * the remaining byte budget. Nothing bigger than one transcript is ever held in memory.
 */
import { open } from 'node:fs/promises';

export interface GenerateOptions {
  /** Seed of the PRNG. */
  seed: number;
  /** The archive stops growing once it reaches this many bytes (UTF-8, newlines included). */
  targetBytes: number;
  /**
   * Median size of one transcript in bytes (log-normal, p90 about 4x the median, capped at 16x).
   * @default 262144
   */
  medianTranscriptBytes?: number;
  /**
   * Share of transcripts written in the OpenAI-agent dialect (`read_file` with `path`/`start_line`/`end_line`,
   * `run_command`, `edit_file`, `todo_write`, with tool definitions); the others use Claude Code's tools (`Read` with
   * `file_path`/`offset`/`limit`, `Bash`, `Edit`, `TodoWrite`, ...).
   * @default 0.3
   */
  openaiDialectShare?: number;
  /**
   * Prefix of transcript ids: `<prefix>-<seed>-<index>`.
   * @default 'synth'
   */
  idPrefix?: string;
  /**
   * Median tool calls per agent step, when set: every step then fires a batch (its first action, then reads), as an
   * agent that runs its tools in parallel does. Unset: Claude Code's shape, batches of reads and searches only.
   */
  callsPerStep?: number;
  /**
   * Scales the median size of tool outputs: files read and written, command output, fetched pages.
   * @default 1
   */
  outputScale?: number;
}

/**
 * The tool-heavy shape: about 130 messages and 78 tool results per transcript, most of them short, so the per-message
 * and per-result work (strategies, the side store) weighs more per MB than in the default shape.
 */
export const TOOL_HEAVY: Readonly<Pick<GenerateOptions, 'medianTranscriptBytes' | 'callsPerStep' | 'outputScale' | 'idPrefix'>> = {
  medianTranscriptBytes: 88 * 1024,
  callsPerStep: 1.6,
  outputScale: 0.25,
  idPrefix: 'synth-tools',
};

export interface ArchiveSummary {
  bytes: number;
  transcripts: number;
  messages: number;
  toolCalls: number;
}

/** Bumped whenever the output for given options changes, so cached archives can be told apart. */
export const GENERATOR_VERSION = 1;

const DEFAULTS = { medianTranscriptBytes: 256 * 1024, openaiDialectShare: 0.3, idPrefix: 'synth', outputScale: 1 };

/** Yields the archive's lines (without `\n`). */
export function* generateArchive(options: GenerateOptions): Generator<string> {
  for (const t of generateTranscripts(options)) yield t.line;
}

/** Streams the archive to a file in large writes, never holding more than a few MB. */
export async function writeArchive(path: string, options: GenerateOptions): Promise<ArchiveSummary> {
  const handle = await open(path, 'w');
  const summary: ArchiveSummary = { bytes: 0, transcripts: 0, messages: 0, toolCalls: 0 };
  let pending: string[] = [];
  let pendingLength = 0;
  try {
    for (const t of generateTranscripts(options)) {
      pending.push(t.line, '\n');
      pendingLength += t.line.length;
      summary.transcripts++;
      summary.messages += t.messages;
      summary.toolCalls += t.toolCalls;
      if (pendingLength >= 8 * 1024 * 1024) {
        summary.bytes += await writeAll(handle, pending.join(''));
        pending = [];
        pendingLength = 0;
      }
    }
    if (pending.length > 0) summary.bytes += await writeAll(handle, pending.join(''));
  } finally {
    await handle.close();
  }
  return summary;
}

function* generateTranscripts(options: GenerateOptions): Generator<{ line: string; messages: number; toolCalls: number }> {
  const opts = { ...DEFAULTS, ...options };
  let total = 0;
  for (let index = 0; total < opts.targetBytes; index++) {
    const rng = new Rng(deriveSeed(opts.seed, index));
    const wanted = Math.min(rng.logNormal(opts.medianTranscriptBytes, 4), opts.medianTranscriptBytes * 16);
    const budget = Math.max(1, Math.min(wanted, opts.targetBytes - total));
    const dialect: Dialect = rng.chance(opts.openaiDialectShare) ? OPENAI : CLAUDE_CODE;
    const builder = new TranscriptBuilder(rng, dialect, budget, opts);
    const line = builder.build(`${opts.idPrefix}-${opts.seed}-${index}`, opts.seed);
    total += Buffer.byteLength(line) + 1;
    yield { line, messages: builder.messageCount, toolCalls: builder.toolCallCount };
  }
}

async function writeAll(handle: Awaited<ReturnType<typeof open>>, text: string): Promise<number> {
  const buffer = Buffer.from(text);
  let offset = 0;
  while (offset < buffer.length) offset += (await handle.write(buffer, offset)).bytesWritten;
  return buffer.length;
}

// ---------------------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: tiny, fast, and good enough for shaping test data. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  weighted<T>(table: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of table) total += w;
    let r = this.next() * total;
    for (const [item, w] of table) if ((r -= w) < 0) return item;
    return table[table.length - 1][0];
  }
  /** Log-normal with the given median and p90/median ratio. */
  logNormal(median: number, p90OverMedian: number): number {
    const sigma = Math.log(p90OverMedian) / 1.2816;
    const z = Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
    return Math.max(1, Math.round(median * Math.exp(sigma * z)));
  }
  base62(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += BASE62[Math.floor(this.next() * 62)];
    return out;
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function deriveSeed(seed: number, index: number): number {
  // splitmix32-style mixing so neighbouring indexes give unrelated streams.
  let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Text

const WORDS = (
  'the a to of and in is it that for on with as this be are we by not or from at an was can if but all will so one ' +
  'have has new when which there more use also need file code test make sure first then now only should would could ' +
  'value change check run add fix update error output input case list each after before into other same time call ' +
  'return type read write line state order next last still because where while without again both data field user ' +
  'result message session path handler module function method config option default start end mode key name event'
).split(' ');

const TECH = (
  'transcript session message token parser buffer stream worker shard batch queue cache index record schema render ' +
  'annotation reference selection request response client server socket channel handler router controller context ' +
  'store repository migration resource action policy filter project dashboard terminal output payload offset limit ' +
  'range chunk window budget summary report metric timer retry status config loader writer reader encoder decoder'
).split(' ');

const ELIXIR_CALLS = ['Enum.map', 'Map.get', 'Repo.get', 'Ash.read!'];
const CSS_PROPERTIES = ['margin', 'padding', 'color', 'display', 'gap'];
const TS_TYPES = ['string', 'number', 'Transcript', 'Buffer'];

const EXTENSIONS = ['ts', 'ts', 'ts', 'ex', 'exs', 'py', 'js', 'md', 'json', 'css'] as const;
type Ext = (typeof EXTENSIONS)[number];

class Text {
  constructor(private readonly rng: Rng) {}

  identifier(): string {
    const rng = this.rng;
    const n = rng.int(1, 3);
    let out = rng.pick(TECH);
    for (let i = 1; i < n; i++) {
      const w = rng.pick(rng.chance(0.5) ? TECH : WORDS);
      out += w[0].toUpperCase() + w.slice(1);
    }
    return out;
  }

  snake(): string {
    return this.identifier().replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  }

  sentence(): string {
    const rng = this.rng;
    const n = rng.int(6, 20);
    let out = '';
    for (let i = 0; i < n; i++) {
      const w = rng.chance(0.25) ? rng.pick(TECH) : rng.pick(WORDS);
      out += i === 0 ? w[0].toUpperCase() + w.slice(1) : rng.chance(0.04) ? `\`${this.identifier()}\`` : ` ${w}`;
      if (i > 0 && i < n - 1 && rng.chance(0.06)) out += ',';
    }
    return `${out}.`;
  }

  /** Prose of roughly `chars` characters, in paragraphs. */
  prose(chars: number): string {
    let out = '';
    while (out.length < chars) {
      out += this.sentence();
      out += this.rng.chance(0.15) ? '\n\n' : ' ';
    }
    return out.trimEnd();
  }

  codeLine(ext: Ext, depth: number): string {
    const rng = this.rng;
    const indent = '  '.repeat(depth);
    // One draw picks the line's template (no closures here: this is the generator's hot path).
    const r = rng.next();
    switch (ext) {
      case 'py':
        if (r < 0.4) return `${indent}${this.snake()} = ${this.snake()}(${this.snake()}, ${this.literal()})`;
        if (r < 0.6) return `${indent}if ${this.snake()}.${this.snake()} == ${this.literal()}:`;
        if (r < 0.7) return `${indent}return ${this.snake()}`;
        if (r < 0.8) return `${indent}# ${this.sentence()}`;
        if (r < 0.9) return `${indent}def ${this.snake()}(self, ${this.snake()}):`;
        return '';
      case 'ex':
      case 'exs':
        if (r < 0.35) return `${indent}${this.snake()} = ${rng.pick(ELIXIR_CALLS)}(${this.snake()}, ${this.literal()})`;
        if (r < 0.45) return `${indent}def ${this.snake()}(${this.snake()}) do`;
        if (r < 0.65) return `${indent}end`;
        if (r < 0.82) return `${indent}|> ${this.snake()}(${this.snake()})`;
        if (r < 0.92) return `${indent}# ${this.sentence()}`;
        return '';
      case 'md':
        return r < 0.2 ? `## ${this.sentence()}` : r < 0.45 ? '' : this.sentence();
      case 'json':
        return `${indent}"${this.identifier()}": ${r < 0.5 ? String(rng.int(0, 4096)) : `"${rng.pick(TECH)}"`},`;
      case 'css':
        return r < 0.2 ? `.${this.snake().replaceAll('_', '-')} {` : `${indent}${rng.pick(CSS_PROPERTIES)}: ${rng.int(0, 32)}px;`;
      default:
        if (r < 0.27)
          return `${indent}const ${this.identifier()} = await ${this.identifier()}(${this.identifier()}, { ${this.identifier()}: ${this.literal()} });`;
        if (r < 0.45) return `${indent}if (${this.identifier()}.${this.identifier()} === ${this.literal()}) {`;
        if (r < 0.63) return `${indent}}`;
        if (r < 0.72) return `${indent}return ${this.identifier()}.${this.identifier()}(${this.identifier()});`;
        if (r < 0.81) return `${indent}// ${this.sentence()}`;
        if (r < 0.9) return `${indent}export function ${this.identifier()}(${this.identifier()}: ${rng.pick(TS_TYPES)}): void {`;
        if (r < 0.95) return `import { ${this.identifier()} } from './${this.identifier()}.js';`;
        return '';
    }
  }

  private literal(): string {
    return this.rng.chance(0.5) ? String(this.rng.int(0, 4096)) : `'${this.rng.pick(TECH)}'`;
  }

  codeLines(ext: Ext, count: number): string[] {
    const lines: string[] = [];
    let depth = 0;
    for (let i = 0; i < count; i++) {
      const line = this.codeLine(ext, depth);
      lines.push(line);
      if (/[{:]$|do$/.test(line)) depth = Math.min(depth + 1, 5);
      else if (/^\s*(}|end)$/.test(line)) depth = Math.max(depth - 1, 0);
    }
    return lines;
  }

  /** Base64 of `bytes` pseudo-random bytes: an image attachment's payload. */
  base64(bytes: number): string {
    const buffer = Buffer.allocUnsafe(bytes);
    for (let i = 0; i < bytes; i += 4) buffer.writeUInt32LE(Math.floor(this.rng.next() * 4294967296), Math.min(i, bytes - 4));
    return buffer.toString('base64');
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Dialects: the tool names and argument shapes of the two agent families.

interface ReadRange {
  /** 1-based first line. */
  from: number;
  /** Number of lines; undefined for "the whole file". */
  count: number | undefined;
}

interface Dialect {
  readonly name: 'claude-code' | 'openai';
  readonly callIdPrefix: string;
  readonly read: string;
  readonly edit: string;
  readonly write: string;
  readonly bash: string;
  readonly grep: string;
  readonly glob: string;
  readonly todo: string;
  readArgs(path: string, range: ReadRange): Record<string, unknown>;
  /** How the tool prints lines it read. */
  readLine(n: number, text: string): string;
  editArgs(path: string, oldText: string, newText: string): Record<string, unknown>;
  editResult(path: string): string;
  writeArgs(path: string, content: string): Record<string, unknown>;
  bashArgs(command: string, description: string): Record<string, unknown>;
}

const CLAUDE_CODE: Dialect = {
  name: 'claude-code',
  callIdPrefix: 'toolu_',
  read: 'Read',
  edit: 'Edit',
  write: 'Write',
  bash: 'Bash',
  grep: 'Grep',
  glob: 'Glob',
  todo: 'TodoWrite',
  readArgs: (path, r) => (r.count === undefined ? { file_path: path } : { file_path: path, offset: r.from, limit: r.count }),
  readLine: (n, text) => `${String(n).padStart(6)}→${text}`,
  editArgs: (path, oldText, newText) => ({ replace_all: false, file_path: path, old_string: oldText, new_string: newText }),
  editResult: (path) => `The file ${path} has been updated successfully.`,
  writeArgs: (path, content) => ({ file_path: path, content }),
  bashArgs: (command, description) => ({ command, description }),
};

const OPENAI: Dialect = {
  name: 'openai',
  callIdPrefix: 'call_',
  read: 'read_file',
  edit: 'edit_file',
  write: 'write_file',
  bash: 'run_command',
  grep: 'search_files',
  glob: 'list_files',
  todo: 'todo_write',
  readArgs: (path, r) => (r.count === undefined ? { path } : { path, start_line: r.from, end_line: r.from + r.count - 1 }),
  readLine: (_n, text) => text,
  editArgs: (path, oldText, newText) => ({ path, old_str: oldText, new_str: newText }),
  editResult: (path) => `Edited ${path}.`,
  writeArgs: (path, content) => ({ path, content }),
  bashArgs: (command) => ({ command }),
};

function toolDefinitions(d: Dialect): unknown[] {
  const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required } },
  });
  const str = { type: 'string' };
  const int = { type: 'integer' };
  return [
    fn(d.read, 'Read a file from the workspace, optionally a range of lines (1-based, inclusive).', { path: str, start_line: int, end_line: int }, ['path']),
    fn(d.edit, 'Replace an exact snippet of a file with new text.', { path: str, old_str: str, new_str: str }, ['path', 'old_str', 'new_str']),
    fn(d.write, 'Create or overwrite a file.', { path: str, content: str }, ['path', 'content']),
    fn(d.bash, 'Run a shell command in the workspace and return its output.', { command: str }, ['command']),
    fn(d.grep, 'Search files for a regular expression.', { pattern: str, path: str }, ['pattern']),
    fn(d.glob, 'List files matching a glob pattern.', { pattern: str }, ['pattern']),
    fn(d.todo, 'Replace the task list.', { todos: { type: 'array', items: { type: 'object' } } }, ['todos']),
  ];
}

// ---------------------------------------------------------------------------------------------------------------------
// One transcript

interface ToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
type Msg =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | Part[] }
  | { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: ToolCallOut[] }
  | { role: 'tool'; tool_call_id: string; content: string | Part[]; is_error?: boolean };

interface VirtualFile {
  path: string;
  ext: Ext;
  lines: string[];
  /** Ranges already read, for re-reads of the same or an overlapping range. */
  reads: ReadRange[];
}

/** Action mix per tool call, from the spotter sessions: Bash 459, Read 267, Edit 206, Glob 59, Grep 53, Write 44. */
const ACTIONS = [
  ['bash', 40],
  ['read', 27],
  ['edit', 16],
  ['grep', 5],
  ['glob', 4],
  ['write', 3],
  ['todo', 4],
  ['fetch', 1],
] as const;
type Action = (typeof ACTIONS)[number][0];

/** Claude Code's own limit: a `Read` without a limit returns at most 2,000 lines. */
const MAX_READ_LINES = 2000;

class TranscriptBuilder {
  private readonly text: Text;
  /** Messages already serialized: the exact size is known as the transcript grows, and nothing is stringified twice. */
  private readonly serialized: string[] = [];
  private readonly files: VirtualFile[] = [];
  private readonly root: string;
  private size = 0;
  /** Bytes of the tool results of the step being built, not yet pushed. */
  private reserved = 0;
  toolCallCount = 0;
  private todoItems: string[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly dialect: Dialect,
    private readonly budget: number,
    private readonly shape: { callsPerStep?: number; outputScale: number },
  ) {
    this.text = new Text(rng);
    this.root = `/home/USER/projects/${this.text.snake()}`;
  }

  get messageCount(): number {
    return this.serialized.length;
  }

  /** The transcript's archive line (without `\n`): what JSON.stringify of the transcript object gives. */
  build(id: string, seed: number): string {
    const rng = this.rng;
    // A long system prompt shared by every transcript of a dialect (as in real archives), short when the budget is tiny.
    this.push({ role: 'system', content: this.budget > 32 * 1024 ? SYSTEM_PROMPTS[this.dialect.name] : 'You are a coding agent.' });
    do {
      this.userRequest();
      const steps = Math.min(rng.logNormal(8, 3), 80);
      for (let s = 0; s < steps && !this.full(); s++) this.agentStep();
      this.push({ role: 'assistant', content: this.text.prose(rng.logNormal(200, 4)) });
    } while (!this.full());
    const tools = this.dialect.name === 'openai' ? `,"tools":${JSON.stringify(toolDefinitions(this.dialect))}` : '';
    const metadata = { source: 'synthetic', generator: `tcompact-synth/${GENERATOR_VERSION}`, seed, dialect: this.dialect.name };
    return `{"id":${JSON.stringify(id)},"messages":[${this.serialized.join(',')}]${tools},"metadata":${JSON.stringify(metadata)}}`;
  }

  private full(): boolean {
    return this.size >= this.budget;
  }

  private push(m: Msg): void {
    const json = JSON.stringify(m);
    this.serialized.push(json);
    this.size += Buffer.byteLength(json) + 1;
  }

  /** Bounds one output to what is left of the budget, so the last transcript does not overshoot by a whole file. */
  private cap(chars: number): number {
    return Math.max(64, Math.min(chars, Math.max(this.budget - this.size - this.reserved, 256)));
  }

  private userRequest(): void {
    const rng = this.rng;
    const text = this.text.prose(this.cap(rng.logNormal(300, 10)));
    if (rng.chance(0.05)) {
      const bytes = this.cap(rng.int(20_000, 120_000)) & ~3;
      this.push({
        role: 'user',
        content: [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${this.text.base64(Math.max(bytes, 4))}` } },
        ],
      });
    } else {
      this.push({ role: 'user', content: text });
    }
  }

  private agentStep(): void {
    const rng = this.rng;
    const first = rng.weighted(ACTIONS);
    // Claude Code fires several reads or searches in parallel in one reply.
    const { callsPerStep } = this.shape;
    const parallel =
      callsPerStep !== undefined
        ? Math.min(rng.logNormal(callsPerStep, 2), 8)
        : first === 'read' || first === 'grep' || first === 'glob'
          ? Math.min(rng.logNormal(1, 3), 5)
          : 1;
    const calls: ToolCallOut[] = [];
    const results: Msg[] = [];
    for (let i = 0; i < parallel; i++) {
      const action: Action = i === 0 ? first : 'read';
      const { name, args, result, isError } = this.act(action);
      const id = `${this.dialect.callIdPrefix}${rng.base62(24)}`;
      calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
      const tool: Msg = { role: 'tool', tool_call_id: id, content: result };
      if (isError) tool.is_error = true;
      results.push(tool);
      this.reserved += approximateSize(tool);
    }
    const assistant: Msg = { role: 'assistant', content: rng.chance(0.45) ? this.text.prose(rng.logNormal(80, 2.5)) : null };
    if (rng.chance(0.25)) assistant.reasoning_content = this.text.prose(rng.logNormal(240, 4.7));
    assistant.tool_calls = calls;
    this.toolCallCount += calls.length;
    this.push(assistant);
    for (const r of results) this.push(r);
    this.reserved = 0;
  }

  private act(action: Action): { name: string; args: Record<string, unknown>; result: string | Part[]; isError?: boolean } {
    const d = this.dialect;
    const rng = this.rng;
    switch (action) {
      case 'read':
        return this.read();
      case 'edit': {
        const file = this.files.length > 0 && rng.chance(0.9) ? rng.pick(this.files) : this.newFile();
        const at = rng.int(0, Math.max(0, file.lines.length - 1));
        const oldLines = file.lines.slice(at, at + rng.int(1, 6));
        const newLines = this.text.codeLines(file.ext, rng.int(1, 10));
        file.lines.splice(at, oldLines.length, ...newLines);
        return { name: d.edit, args: d.editArgs(file.path, oldLines.join('\n'), newLines.join('\n')), result: d.editResult(file.path) };
      }
      case 'write': {
        const file = this.newFile();
        return { name: d.write, args: d.writeArgs(file.path, file.lines.join('\n')), result: `File created successfully at: ${file.path}` };
      }
      case 'bash':
        return this.bash();
      case 'grep': {
        const pattern = this.text.identifier();
        const hits = Math.min(rng.logNormal(4, 5), 60);
        const lines: string[] = [];
        for (let i = 0; i < hits; i++) lines.push(`${this.somePath()}:${rng.int(1, 900)}:${this.text.codeLine('ts', 1)}`);
        return { name: d.grep, args: { pattern, path: this.root }, result: hits === 0 ? 'No matches found' : lines.join('\n') };
      }
      case 'glob': {
        const n = Math.min(rng.logNormal(5, 6), 200);
        const lines: string[] = [];
        for (let i = 0; i < n; i++) lines.push(this.somePath());
        return { name: d.glob, args: { pattern: `**/*.${rng.pick(EXTENSIONS)}` }, result: lines.join('\n') };
      }
      case 'todo': {
        if (this.todoItems.length === 0 || rng.chance(0.2)) this.todoItems = Array.from({ length: rng.int(3, 8) }, () => this.text.sentence());
        const done = rng.int(0, this.todoItems.length - 1);
        const todos = this.todoItems.map((content, i) => ({
          content,
          status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
          activeForm: content.replace(/\.$/, '...'),
        }));
        return {
          name: d.todo,
          args: { todos },
          result: 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.',
        };
      }
      case 'fetch': {
        const url = `https://docs.example.org/${this.text.snake()}/${this.text.snake()}`;
        return {
          name: d.name === 'openai' ? 'web_fetch' : 'WebFetch',
          args: { url, prompt: this.text.sentence() },
          result: this.text.prose(this.cap(rng.logNormal(1200 * this.shape.outputScale, 12))),
        };
      }
    }
  }

  /** Reads: re-reads of the same range, overlapping ranges, or a new file; an image file now and then. */
  private read(): { name: string; args: Record<string, unknown>; result: string | Part[] } {
    const rng = this.rng;
    const d = this.dialect;
    if (rng.chance(0.01)) {
      const path = `${this.root}/docs/screenshot-${rng.int(1, 99)}.png`;
      const bytes = this.cap(rng.int(8_000, 60_000)) & ~3 || 4;
      return {
        name: d.read,
        args: d.readArgs(path, { from: 1, count: undefined }),
        result: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${this.text.base64(bytes)}` } }],
      };
    }
    let file: VirtualFile;
    let range: ReadRange;
    const readBefore = this.files.filter((f) => f.reads.length > 0);
    if (readBefore.length > 0 && rng.chance(0.4)) {
      file = rng.pick(readBefore);
      const prior = rng.pick(file.reads);
      if (rng.chance(0.5)) {
        range = { ...prior };
      } else {
        // Overlapping window: shifted by a fraction of the earlier one, as when an agent scrolls back and forth.
        const width = prior.count ?? Math.min(file.lines.length, MAX_READ_LINES);
        const shift = rng.int(-Math.floor(width / 2), Math.floor(width / 2));
        const from = Math.max(1, Math.min(prior.from + shift, Math.max(1, file.lines.length - 10)));
        range = { from, count: Math.max(10, Math.min(rng.int(Math.ceil(width / 2), width * 2), (this.cap(width * 40) / 40) | 0)) };
      }
    } else {
      file = this.files.length > 0 && rng.chance(0.3) ? rng.pick(this.files) : this.newFile();
      const whole = file.lines.length * 40 <= this.cap(file.lines.length * 40) && rng.chance(0.75);
      range = whole
        ? { from: 1, count: undefined }
        : { from: rng.int(1, Math.max(1, file.lines.length - 20)), count: Math.max(10, Math.min(rng.int(15, 200), (this.cap(8000) / 40) | 0)) };
    }
    file.reads.push(range);
    const last = range.count === undefined ? Math.min(file.lines.length, MAX_READ_LINES) : Math.min(file.lines.length, range.from + range.count - 1);
    const out: string[] = [];
    for (let n = range.from; n <= last; n++) out.push(d.readLine(n, file.lines[n - 1]));
    return { name: d.read, args: d.readArgs(file.path, range), result: out.join('\n') };
  }

  private bash(): { name: string; args: Record<string, unknown>; result: string; isError?: boolean } {
    const rng = this.rng;
    const [command, description] = rng.pick(BASH_COMMANDS);
    const cmd = command.replaceAll('$ID', this.text.snake()).replaceAll('$PATH', this.somePath());
    const fails = rng.chance(0.13);
    const lines: string[] = [];
    const target = this.cap(rng.logNormal(250 * this.shape.outputScale, 10));
    let size = 0;
    while (size < target) {
      const line = rng.chance(0.3)
        ? this.text.sentence()
        : rng.chance(0.5)
          ? `${this.somePath()}:${rng.int(1, 500)}: ${this.text.codeLine('ts', 0)}`
          : `  ${rng.pick(['ok', 'PASS', 'warning:', 'info', '✓'])} ${this.text.identifier()} (${rng.int(1, 900)}ms)`;
      lines.push(line);
      size += line.length + 1;
    }
    if (fails) {
      lines.push(`** (${rng.pick(['CompileError', 'TypeError', 'AssertionError', 'ENOENT'])}) ${this.text.sentence()}`);
      return {
        name: this.dialect.bash,
        args: this.dialect.bashArgs(cmd, description),
        result: `Exit code ${rng.pick([1, 1, 1, 2, 127])}\n${lines.join('\n')}`,
        isError: true,
      };
    }
    return { name: this.dialect.bash, args: this.dialect.bashArgs(cmd, description), result: lines.join('\n') };
  }

  private newFile(): VirtualFile {
    const rng = this.rng;
    const ext = rng.pick(EXTENSIONS);
    // File length in lines: median 120, p90 about 600 (Read results in spotter: median 2.0k chars, p90 16k).
    const median = 120 * this.shape.outputScale;
    const count = Math.min(rng.logNormal(median, 5), 2400, Math.max(8, (this.cap(rng.logNormal(median, 5) * 40) / 40) | 0));
    const file: VirtualFile = { path: `${this.root}/${rng.pick(DIRS)}/${this.text.snake()}.${ext}`, ext, lines: this.text.codeLines(ext, count), reads: [] };
    this.files.push(file);
    return file;
  }

  private somePath(): string {
    return this.files.length > 0 && this.rng.chance(0.6)
      ? this.rng.pick(this.files).path
      : `${this.root}/${this.rng.pick(DIRS)}/${this.text.snake()}.${this.rng.pick(EXTENSIONS)}`;
  }
}

function approximateSize(m: Msg): number {
  let n = 40;
  if (typeof m.content === 'string') n += m.content.length;
  else if (Array.isArray(m.content)) for (const p of m.content) n += p.type === 'text' ? p.text.length : p.image_url.url.length;
  if (m.role === 'assistant') {
    n += m.reasoning_content?.length ?? 0;
    for (const c of m.tool_calls ?? []) n += 60 + c.function.arguments.length;
  }
  return n;
}

const DIRS = ['src', 'src/lib', 'src/server', 'lib/app', 'test', 'test/support', 'assets/js', 'config', 'docs', 'priv/repo'];

const BASH_COMMANDS: readonly (readonly [string, string])[] = [
  ['npm test -- $ID', 'Run the related tests'],
  ['mix test test/$ID_test.exs', 'Run the module tests'],
  ['git status --short', 'Show changed files'],
  ['git diff --stat', 'Summarize the diff'],
  ['grep -rn "$ID" src lib | head -50', 'Find usages'],
  ['ls -la $PATH', 'List the directory'],
  ['npx tsc --noEmit -p tsconfig.json', 'Typecheck'],
  ['mix compile --warnings-as-errors', 'Compile and check warnings'],
  ['cat $PATH | head -40', 'Peek at the file'],
  ['git log --oneline -20', 'Recent commits'],
];

const SYSTEM_PROMPTS: Record<Dialect['name'], string> = (() => {
  const text = new Text(new Rng(0x5eed));
  return {
    'claude-code': `You are Claude Code, an interactive CLI agent.\n\n${text.prose(12_000)}`,
    openai: `You are a coding agent working in a repository.\n\n${text.prose(6_000)}`,
  };
})();
