import { TcompactError } from '../../../errors.js';

/** A parsed `--queue` URL: the full text for the client, and a form safe to print anywhere. */
export interface QueueUrl {
  /** The URL as given, password included: only ever handed to the Redis client. */
  readonly url: string;
  /** The same URL with the password replaced by `***`: the only form that reaches logs, reports and errors. */
  readonly redacted: string;
  /** Removes the password from any text (an error message from the client, a stack). */
  redact(text: string): string;
}

/** Parses `redis://[user:pass@]HOST:PORT[/DB]` or `rediss://…` (TLS); anything else is E_USAGE. */
export function parseQueueUrl(text: string): QueueUrl {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new TcompactError('E_USAGE', `--queue must be a URL like redis://HOST:PORT[/DB], got "${redactLoosely(text)}"`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new TcompactError('E_USAGE', `--queue must start with redis:// or rediss:// (TLS), got "${parsed.protocol}//"`);
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new TcompactError('E_USAGE', `--queue: the database after the port must be a number, got "/${db}"`);
  const secrets = [parsed.password, safeDecode(parsed.password)].filter((s) => s !== '');
  const redact = (s: string): string => secrets.reduce((out, secret) => out.split(secret).join('***'), s);
  const shown = new URL(text);
  if (shown.password !== '') shown.password = '***';
  return { url: text, redacted: shown.toString().replace('%2A%2A%2A', '***'), redact };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** For a text that is not even a URL: drop whatever sits between `://` and `@`. */
function redactLoosely(text: string): string {
  return text.replace(/:\/\/[^@/]*@/, '://***@');
}
