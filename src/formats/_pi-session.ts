import type { Message } from '../model/message.js';
import { type BranchMark, findBranches } from './_branches.js';
import { isObject } from './_items.js';
import { orderByParent } from './_parent-order.js';
import {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  customMessageEntry,
  isPiEntryType,
  isPiSessionHeader,
  messageEntry,
} from './_pi-entries.js';
import type { Accepted } from './_records.js';

/** One entry of the session tree, kept or not: every entry with an id is a node, so parents resolve through all. */
interface Entry {
  id: string;
  parent: string | undefined;
  type: string;
  timestamp: string | undefined;
  messages: Message[];
  /** A compaction entry: its summary's message is `messages[0]`. */
  compaction?: { firstKeptEntryId: string | undefined; tokensBefore: unknown; fromHook?: true };
  /** A v1 compaction names its first kept entry by its index among the file's entries. */
  firstKeptEntryIndex?: number;
}

/** A pi compaction in metadata.compactions: the summary's message, the first message it kept, pi's token count before. */
export interface PiCompaction {
  summaryIndex: number;
  /** The first message of what pi kept after the summary (`firstKeptEntryId`): the replay keeps from there on. */
  keptFromIndex?: number;
  firstKeptEntryId?: string;
  preTokens?: number;
  fromHook?: true;
}

export interface BuiltSession {
  messages: Message[];
  compactions: PiCompaction[];
  branchSummaries: number[];
  /** Entries that came before their parent in the file and were moved after it. */
  moved: number;
  warnings: string[];
}

/**
 * A pi session file, entry by entry, then as one transcript: every branch of the id/parentId tree in file order (pi
 * only appends; a branch made with `/tree` or `/fork` hangs off an earlier entry). The branches are marked as Claude
 * Code's forks are (`_branches.ts`): the replay gives each its own context from its branch point, which is what pi
 * sends (`buildSessionContext` walks from the leaf to the root).
 */
export class PiSession {
  readonly metadata: Record<string, unknown> = {};
  private readonly entries: Entry[] = [];
  private readonly models: string[] = [];
  private version = 1;
  private header = false;
  /** v1 files have no ids: pi gives each entry the previous one as parent (`migrateV1ToV2`). */
  private previousId: string | undefined;
  /** Every record after the header, as pi counts its entries (the id of those kept as entries): a v1 compaction indexes them. */
  private readonly fileEntries: (string | undefined)[] = [];
  /** The system prompt an early header recorded. */
  private system: Message | undefined;
  /** The model of the last `model_change` (OpenClaw's replies may leave it out). */
  private currentModel: string | undefined;

  accept(value: unknown, line: number): Accepted {
    if (!isObject(value)) return { kind: 'error', message: 'expected a pi session entry (an object)' };
    if (value.type === 'session') {
      if (!isPiSessionHeader(value)) return { kind: 'error', message: 'session header: expected {type: "session", id, timestamp, cwd?, version?}' };
      if (this.header) return { kind: 'error', message: 'session header: a second header in one file' };
      this.header = true;
      this.version = typeof value.version === 'number' ? value.version : 1;
      const m = this.metadata;
      m.sessionId = value.id;
      m.sessionVersion = this.version;
      if (typeof value.cwd === 'string' && value.cwd !== '') m.cwd = value.cwd;
      if (typeof value.parentSession === 'string') m.parentSession = value.parentSession;
      m.startedAt = value.timestamp;
      // Headers before v2 named the session's model (`model`, later `provider` and `modelId`), and the first ones held
      // the system prompt pi sent (session-manager.ts of November 2025).
      const model = typeof value.modelId === 'string' ? value.modelId : typeof value.model === 'string' ? value.model : undefined;
      if (model !== undefined && model !== '') this.currentModel = model;
      if (typeof value.branchedFrom === 'string') m.branchedFrom = value.branchedFrom;
      if (typeof value.systemPrompt === 'string' && value.systemPrompt !== '')
        this.system = { role: 'system', content: value.systemPrompt, timestamp: value.timestamp };
      return { kind: 'kept' };
    }
    if (!this.header) return { kind: 'error', message: 'expected the session header ({type: "session", ...}) first' };
    const index = this.fileEntries.push(undefined) - 1;
    if (!isPiEntryType(value.type)) return { kind: 'skipped', reason: `record:${typeof value.type === 'string' ? value.type : 'unknown'}` };
    const id = typeof value.id === 'string' && value.id !== '' ? value.id : this.version < 2 ? `#${line}` : undefined;
    if (id === undefined) return { kind: 'error', message: 'id: expected a string (entries of version 2 and later have ids)' };
    const parent = this.version < 2 && typeof value.id !== 'string' ? this.previousId : typeof value.parentId === 'string' ? value.parentId : undefined;
    this.previousId = id;
    this.fileEntries[index] = id;
    const entry: Entry = { id, parent, type: value.type, timestamp: typeof value.timestamp === 'string' ? value.timestamp : undefined, messages: [] };
    this.entries.push(entry);
    return this.fill(entry, value);
  }

  private fill(entry: Entry, e: Record<string, unknown>): Accepted {
    switch (e.type) {
      case 'message': {
        const converted = messageEntry(e.message);
        if (converted.kind !== 'messages') return converted;
        for (const m of converted.messages) {
          if (m.role === 'assistant' && m.model === undefined && this.currentModel !== undefined) m.model = this.currentModel;
          if (m.role === 'assistant' && typeof m.model === 'string' && !this.models.includes(m.model)) this.models.push(m.model);
        }
        entry.messages = converted.messages;
        return { kind: 'kept' };
      }
      case 'custom_message': {
        const converted = customMessageEntry(e);
        if (converted.kind !== 'messages') return converted;
        entry.messages = converted.messages;
        return { kind: 'kept' };
      }
      case 'model_change': {
        // `model` alone before pi recorded the provider.
        const model = typeof e.modelId === 'string' ? e.modelId : typeof e.model === 'string' ? e.model : undefined;
        if (model === undefined) return { kind: 'error', message: 'modelId: expected a string' };
        this.currentModel = model;
        return { kind: 'kept' };
      }
      case 'compaction':
        return this.compaction(entry, e);
      case 'branch_summary': {
        if (typeof e.summary !== 'string') return { kind: 'error', message: 'summary: expected a string' };
        // pi puts an empty summary in no prompt (buildSessionContext).
        if (e.summary !== '')
          entry.messages = [{ role: 'user', content: BRANCH_SUMMARY_PREFIX + e.summary + BRANCH_SUMMARY_SUFFIX, is_meta: true, branch_summary: true }];
        return { kind: 'kept' };
      }
      case 'session_info':
        if (typeof e.name === 'string') this.metadata.title = e.name;
        return { kind: 'kept' };
      case 'custom': {
        // OpenClaw records the model in a `model-snapshot` custom entry too.
        const data = isObject(e.data) ? e.data : {};
        if (e.customType === 'model-snapshot' && typeof (data.modelId ?? data.model) === 'string') this.currentModel = (data.modelId ?? data.model) as string;
        return { kind: 'skipped', reason: `record:custom${typeof e.customType === 'string' ? `/${e.customType}` : ''}` };
      }
      default:
        return { kind: 'skipped', reason: `record:${entry.type}` };
    }
  }

  private compaction(entry: Entry, e: Record<string, unknown>): Accepted {
    if (typeof e.summary !== 'string') return { kind: 'error', message: 'summary: expected a string' };
    entry.messages = [{ role: 'user', content: COMPACTION_SUMMARY_PREFIX + e.summary + COMPACTION_SUMMARY_SUFFIX, is_compact_summary: true }];
    entry.compaction = { firstKeptEntryId: typeof e.firstKeptEntryId === 'string' ? e.firstKeptEntryId : undefined, tokensBefore: e.tokensBefore };
    if (e.fromHook === true) entry.compaction.fromHook = true;
    if (typeof e.firstKeptEntryIndex === 'number') entry.firstKeptEntryIndex = e.firstKeptEntryIndex;
    return { kind: 'kept' };
  }

  /** Whether any entry was read (a file with a header alone makes no transcript). */
  get hasMessages(): boolean {
    return this.system !== undefined || this.entries.some((e) => e.messages.length > 0);
  }

  finish(): BuiltSession {
    const warnings: string[] = [];
    // A v1 compaction's `firstKeptEntryIndex` counts the header as entry 0 (pi's `migrateV1ToV2`).
    for (const e of this.entries) {
      if (e.compaction && e.firstKeptEntryIndex !== undefined && e.compaction.firstKeptEntryId === undefined)
        e.compaction.firstKeptEntryId = this.fileEntries[e.firstKeptEntryIndex - 1];
    }
    const ordered = orderByParent(
      this.entries,
      (e) => e.id,
      (e) => e.parent,
    );
    if (ordered.moved > 0) warnings.push(`${ordered.moved} entries came before their parent in the file and were moved after it`);
    const entries = ordered.items;
    const marks = findBranches(
      entries.map((e) => ({
        id: e.id,
        parent: e.parent,
        prompt: e.type === 'message' && e.messages.some((m) => m.role === 'user' && m.bash_execution !== true),
        call: e.messages.some((m) => m.role === 'assistant' && m.usage !== undefined),
      })),
    );
    const messages: Message[] = this.system ? [this.system] : [];
    const compactions: PiCompaction[] = [];
    const branchSummaries: number[] = [];
    /** Per entry id: the index of the first message at or after it, and of the last message on its chain up to it. */
    const firstAt = new Map<string, number>();
    const lastOnChain = new Map<string, number | undefined>();
    /** A branch whose first entries hold no message: its mark goes on the first message below them. */
    const pendingFrom = new Map<string, number>();
    entries.forEach((e, i) => {
      const mark: BranchMark = marks.get(i) ?? {};
      firstAt.set(e.id, messages.length);
      const from = mark.branchFrom ?? (e.parent !== undefined ? pendingFrom.get(e.parent) : undefined);
      e.messages.forEach((m, k) => {
        if (mark.thread !== undefined) m.thread = mark.thread;
        if (k === 0 && from !== undefined) m.branch_from = from;
        if (m.timestamp === undefined && e.timestamp !== undefined) m.timestamp = e.timestamp;
        messages.push(m);
      });
      if (e.messages.length === 0 && from !== undefined) pendingFrom.set(e.id, from);
      const last = e.messages.length > 0 ? messages.length - 1 : e.parent !== undefined ? lastOnChain.get(e.parent) : undefined;
      lastOnChain.set(e.id, last);
      if (mark.branchPoint !== undefined && last !== undefined) messages[last].branch_point = mark.branchPoint;
      if (e.type === 'branch_summary' && e.messages.length > 0) branchSummaries.push(messages.length - 1);
      if (e.compaction) {
        const c: PiCompaction = { summaryIndex: messages.length - 1 };
        const kept = e.compaction.firstKeptEntryId;
        if (kept !== undefined) {
          c.firstKeptEntryId = kept;
          const from = firstAt.get(kept);
          if (from !== undefined) c.keptFromIndex = from;
          else warnings.push(`compaction ${e.id}: its first kept entry ${kept} is not in the file; the summary stands for all before it`);
        }
        if (typeof e.compaction.tokensBefore === 'number') c.preTokens = e.compaction.tokensBefore;
        if (e.compaction.fromHook) c.fromHook = true;
        compactions.push(c);
      }
    });
    if (this.models.length > 0) this.metadata.models = this.models;
    return { messages, compactions, branchSummaries, moved: ordered.moved, warnings };
  }
}
