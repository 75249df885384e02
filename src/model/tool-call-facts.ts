import { canonicalJson, parseArguments } from '../io/canonical-json.js';
import type { ToolCall } from './message.js';
import { type ToolAction, describeParsedCall } from './tool-semantics.js';

/**
 * What the strategies read off one tool call: its parsed arguments, their canonical text and what the call did. Read
 * once per call object and shared: a strategy returns the calls it keeps as the same objects, so the steps after it
 * (dedup-tools, then checkpoint, then a checkpoint after truncate) find them here instead of parsing the arguments again.
 * Each entry remembers the name and arguments text it was read from and is read again when they differ, so a caller
 * that changes a call's `function` gets fresh facts rather than stale ones.
 */
interface CallFacts {
  name: string;
  arguments: string;
  /** Parsed when first asked; `null` until then (undefined is a parse result: not a JSON object). */
  args: Readonly<Record<string, unknown>> | undefined | null;
  canonical?: string;
  action?: ToolAction;
}

const facts = new WeakMap<ToolCall, CallFacts>();

function factsOf(call: ToolCall): CallFacts {
  const { name, arguments: argumentsJson } = call.function;
  let entry = facts.get(call);
  if (!entry || entry.name !== name || entry.arguments !== argumentsJson) {
    entry = { name, arguments: argumentsJson, args: null };
    facts.set(call, entry);
  }
  return entry;
}

/**
 * The call's arguments parsed, or undefined when they are not a JSON object. Shared between callers: read it, never
 * change it.
 */
export function callArguments(call: ToolCall): Readonly<Record<string, unknown>> | undefined {
  return argsOf(factsOf(call));
}

function argsOf(entry: CallFacts): Readonly<Record<string, unknown>> | undefined {
  if (entry.args === null) entry.args = parseArguments(entry.arguments);
  return entry.args;
}

/** The arguments as canonical JSON (keys sorted), or undefined when they are not a JSON object. */
export function callCanonicalArguments(call: ToolCall): string | undefined {
  const entry = factsOf(call);
  if (entry.canonical === undefined) {
    const args = argsOf(entry);
    if (args === undefined) return undefined;
    entry.canonical = keysInOrder(args) ? JSON.stringify(args) : canonicalJson(args);
  }
  return entry.canonical;
}

/**
 * Whether parsed JSON already has its keys sorted at every level, so that it serializes to its canonical text as it is
 * (most producers write arguments in one fixed order, often sorted): no sorted copy to build. `__proto__` is left to
 * canonicalJson, which drops it.
 */
function keysInOrder(value: unknown): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!keysInOrder(value[i])) return false;
    return true;
  }
  if (value === null || typeof value !== 'object') return true;
  let previous: string | undefined;
  for (const key in value) {
    if ((previous !== undefined && key < previous) || key === '__proto__' || !keysInOrder((value as Record<string, unknown>)[key])) return false;
    previous = key;
  }
  return true;
}

/** What the call did ({@link describeParsedCall}). Shared between callers: read it, never change it. */
export function callAction(call: ToolCall): ToolAction {
  const entry = factsOf(call);
  entry.action ??= describeParsedCall(entry.name, argsOf(entry));
  return entry.action;
}
