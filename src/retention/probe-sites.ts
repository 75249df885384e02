import { type Message, isRole } from '../model/message.js';
import { errorLine, isFailedResult } from '../model/tool-outcome.js';
import { describeToolCall } from '../model/tool-semantics.js';
import { collapseWhitespace, normalizeCommand, normalizeProbePath } from './normalize.js';
import type { Probe } from './probes.js';
import { requestText } from './requests.js';

/** Where a kind of fact occurs: key -> indexes of the messages, ascending. */
type Sites = Map<string, number[]>;

function add(sites: Sites, key: string, index: number): void {
  const list = sites.get(key);
  if (!list) sites.set(key, [index]);
  else if (list[list.length - 1] !== index) list.push(index);
}

/**
 * Where each probe of a transcript occurs (see probes.ts for what makes one): the messages that made the file call or
 * ran the command, the failed results that printed the error line, the user messages that made the request, the call
 * that wrote the open task. Built once per transcript; `sitesOf` answers for any probe of it.
 */
export function probeSites(messages: readonly Message[]): (probe: Probe) => number[] {
  const files: Sites = new Map();
  const commands: Sites = new Map();
  const errors: Sites = new Map();
  const requests: Sites = new Map();
  const tasks: Sites = new Map();
  messages.forEach((m, i) => {
    if (isRole(m, 'assistant')) {
      for (const call of m.tool_calls ?? []) {
        const action = describeToolCall(call.function.name, call.function.arguments);
        if (action.kind === 'read' || action.kind === 'write' || action.kind === 'edit') add(files, normalizeProbePath(action.path), i);
        else if (action.kind === 'shell') add(commands, normalizeCommand(action.command), i);
        else if (action.kind === 'todo') for (const todo of action.todos) add(tasks, collapseWhitespace(todo.content), i);
      }
    } else if (isRole(m, 'tool') && isFailedResult(m)) {
      const line = errorLine(m);
      if (line !== undefined) add(errors, line, i);
    } else if (isRole(m, 'user')) {
      const text = requestText(m);
      if (text !== undefined) add(requests, text, i);
    }
  });
  return (probe) => {
    switch (probe.kind) {
      case 'artifact':
        return files.get(probe.path) ?? [];
      case 'command':
        return commands.get(probe.command) ?? [];
      case 'error':
        return errors.get(probe.line) ?? [];
      case 'intent': {
        const at = requests.get(probe.text) ?? [];
        // The verbatim probe is the last request.
        return probe.match === 'verbatim' ? at.slice(-1) : at;
      }
      case 'task':
        // Open tasks come from the last call that wrote the list.
        return (tasks.get(probe.content) ?? []).slice(-1);
    }
  };
}
