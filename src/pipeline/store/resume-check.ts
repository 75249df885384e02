import { TcompactError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical-json.js';
import { describeChange, type FileFingerprint } from '../../io/fingerprint.js';
import type { JournalHeader } from './journal.js';
import type { ShardDescriptor } from '../shard/types.js';

const START_OVER = 'run again without --resume to start over';

/**
 * Refuses a resume (E_RESUME) when the settings or any input file differ from the ones the journal was started with,
 * naming what changed. Committing shards of two different jobs into one output would silently mix them.
 */
export function checkResume(header: JournalHeader, settings: Record<string, unknown>, settingsHash: string, inputs: readonly FileFingerprint[]): void {
  const listed = listChange(header.settings.inputs, settings.inputs);
  if (listed !== undefined) throw new TcompactError('E_RESUME', `the list of inputs changed since the journal was written (${listed}); ${START_OVER}`);
  if (header.settingsHash !== settingsHash) {
    const changes = diffSettings(header.settings, settings);
    throw new TcompactError('E_RESUME', `the configuration changed since the journal was written (${changes.join('; ') || 'settings differ'}); ${START_OVER}`);
  }
  const before = new Map(header.inputs.map((f) => [f.path, f]));
  const changes: string[] = [];
  for (const now of inputs) {
    const was = before.get(now.path);
    if (!was) changes.push(`${now.path}: new file`);
    else {
      const change = describeChange(was, now);
      if (change) changes.push(change);
    }
    before.delete(now.path);
  }
  for (const gone of before.keys()) changes.push(`${gone}: removed`);
  if (changes.length > 0) {
    throw new TcompactError(
      'E_RESUME',
      `the input changed since the journal was written (${changes.slice(0, 5).join('; ')}${changes.length > 5 ? `; and ${changes.length - 5} more` : ''}); ${START_OVER}`,
    );
  }
}

/** A committed shard must be the very shard the plan produces now; a range shard's SHA-256 covers its bytes. */
export function checkSameShard(committed: ShardDescriptor, planned: ShardDescriptor): void {
  if (canonicalJson(committed) === canonicalJson(planned)) return;
  const where = planned.kind === 'range' ? `${planned.file} bytes ${planned.start}-${planned.end}` : `${planned.input} items from ${planned.firstItem}`;
  throw new TcompactError(
    'E_RESUME',
    `the input changed since the journal was written (shard ${planned.index}, ${where}, differs from the committed one); ${START_OVER}`,
  );
}

/** The inputs given (or found) added and removed, five named, or undefined when the lists are the same. */
function listChange(before: unknown, after: unknown): string | undefined {
  if (!Array.isArray(before) || !Array.isArray(after) || canonicalJson(before) === canonicalJson(after)) return undefined;
  const was = new Set(before.map(String));
  const now = new Set(after.map(String));
  const added = [...now].filter((p) => !was.has(p));
  const removed = [...was].filter((p) => !now.has(p));
  const named = (paths: string[]) => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
  const parts = [
    ...(added.length > 0 ? [`${added.length} added: ${named(added)}`] : []),
    ...(removed.length > 0 ? [`${removed.length} removed: ${named(removed)}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'the same inputs, in another order or repeated';
}

/** `path: before -> after` for every leaf that differs. */
function diffSettings(before: unknown, after: unknown, path = ''): string[] {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(before) || !isObject(after)) return [`${path || 'settings'}: ${canonicalJson(before) ?? 'unset'} -> ${canonicalJson(after) ?? 'unset'}`];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((k) => diffSettings(before[k], after[k], path ? `${path}.${k}` : k));
}
