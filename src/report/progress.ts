import { int } from './format.js';

interface ProgressSnapshot {
  bytesDone: number;
  bytesTotal: number;
  transcripts: number;
  tokensSaved: number;
  errors: number;
  /** Worker processes seen, in a distributed run. */
  workersSeen?: number;
  /** Shown at the end of the line, e.g. the state of the batches a batch run waits for. */
  note?: string;
}

interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

interface ProgressOptions {
  /** Nothing at all. @default false */
  quiet?: boolean;
  /** Redraw interval on a terminal. @default 200 */
  ttyIntervalMs?: number;
  /** Interval of the plain log line when stderr is not a terminal. @default 5000 */
  logIntervalMs?: number;
  now?: () => number;
}

export interface Progress {
  /** Records the latest totals; cheap, never renders (rendering runs on its own timer). */
  update(snapshot: ProgressSnapshot): void;
  /** Stops the timer and clears the live line. */
  stop(): void;
}

const MB = 1e6;

/**
 * The run's progress on stderr: on a terminal a live line redrawn in place (transcripts, MB done, rate, ETA, tokens
 * saved, errors); otherwise (CI, pipes) the same facts as a plain line every few seconds; nothing with `quiet`.
 * Updates only store numbers; an unref'd timer renders them, so the hot path never formats or writes anything.
 */
export function createProgress(stream: ProgressStream, options: ProgressOptions = {}): Progress {
  if (options.quiet) return { update: () => undefined, stop: () => undefined };
  const now = options.now ?? (() => performance.now());
  const tty = stream.isTTY === true;
  const started = now();
  let latest: ProgressSnapshot = { bytesDone: 0, bytesTotal: 0, transcripts: 0, tokensSaved: 0, errors: 0 };
  let dirty = false;
  let stopped = false;
  const render = (): void => {
    if (!dirty && !tty) return;
    dirty = false;
    const line = formatProgress(latest, now() - started);
    stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
  };
  const timer = setInterval(render, tty ? (options.ttyIntervalMs ?? 200) : (options.logIntervalMs ?? 5000));
  timer.unref();
  return {
    update(snapshot) {
      latest = snapshot;
      dirty = true;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (tty) stream.write('\r\x1b[2K');
    },
  };
}

/** `12 transcripts, 3.2/10.0 MB (32%), 1.6 MB/s, ETA 4s, 1,234 tokens saved, 0 errors` */
export function formatProgress(s: ProgressSnapshot, elapsedMs: number): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? s.bytesDone / MB / seconds : 0;
  const share = s.bytesTotal > 0 ? Math.min(100, Math.round((100 * s.bytesDone) / s.bytesTotal)) : 0;
  const remaining = Math.max(0, s.bytesTotal - s.bytesDone);
  const eta = rate > 0 ? formatDuration(remaining / MB / rate) : '?';
  return [
    `${s.transcripts} transcripts`,
    `${(s.bytesDone / MB).toFixed(1)}/${(s.bytesTotal / MB).toFixed(1)} MB (${share}%)`,
    `${rate.toFixed(1)} MB/s`,
    `ETA ${eta}`,
    `${int(s.tokensSaved)} tokens saved`,
    `${s.errors} errors`,
    ...(s.workersSeen === undefined ? [] : [`${s.workersSeen} workers`]),
    ...(s.note === undefined ? [] : [s.note]),
  ].join(', ');
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface StatusLine {
  /** The text to show; cheap, never renders (a timer does). */
  set(text: string): void;
  /** Stops the timer and clears the line. */
  stop(): void;
}

/**
 * A status line for the long replays (`simulate`, `tune`): on a terminal, the latest text with the time elapsed,
 * redrawn in place and cleared at the end. Off a terminal nothing: the report that follows says it all, and a log
 * gains nothing from a line per interval.
 */
export function createStatusLine(stream: ProgressStream, options: { ttyIntervalMs?: number; now?: () => number } = {}): StatusLine {
  if (stream.isTTY !== true) return { set: () => undefined, stop: () => undefined };
  const now = options.now ?? (() => performance.now());
  const started = now();
  let text = '';
  let stopped = false;
  const timer = setInterval(() => {
    if (text !== '') stream.write(`\r\x1b[2K${text}, ${formatDuration((now() - started) / 1000)}`);
  }, options.ttyIntervalMs ?? 200);
  timer.unref();
  return {
    set(latest) {
      text = latest;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
