import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isObject } from './_items.js';

/**
 * The folder a Cline or Roo Code task worked in. The history file does not record it; the extensions keep it beside
 * it: Roo Code in the task's `history_item.json` (`workspace`, src/core/task-persistence/TaskHistoryStore.ts), Cline in
 * `<storage>/state/taskHistory.json`, the list of every task (`cwdOnTaskInitialization`,
 * apps/vscode/src/core/storage/disk.ts). Undefined when neither is there (a task folder copied alone).
 */
export async function clineTaskWorkspace(historyFile: string, taskId: string): Promise<string | undefined> {
  const taskDir = dirname(historyFile);
  const item = await readJson(join(taskDir, 'history_item.json'));
  if (isObject(item) && typeof item.workspace === 'string' && item.workspace !== '') return item.workspace;
  const workspaces = await taskHistory(join(dirname(dirname(taskDir)), 'state', 'taskHistory.json'));
  return workspaces?.get(taskId);
}

/** The largest side file read: a task history lists every task the user ran. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The last task history read, by path, size and modification time: the tasks of one storage are read one after the
 * other, and each would otherwise parse the whole list again.
 */
let lastHistory: { key: string; workspaces: Map<string, string> | undefined } | undefined;

async function taskHistory(file: string): Promise<Map<string, string> | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const key = `${file}\0${info.size}\0${info.mtimeMs}`;
  if (lastHistory?.key === key) return lastHistory.workspaces;
  const list = info.size > MAX_BYTES ? undefined : await readJson(file);
  let workspaces: Map<string, string> | undefined;
  if (Array.isArray(list)) {
    workspaces = new Map();
    for (const h of list) {
      if (isObject(h) && typeof h.id === 'string' && typeof h.cwdOnTaskInitialization === 'string' && h.cwdOnTaskInitialization !== '')
        workspaces.set(h.id, h.cwdOnTaskInitialization);
    }
  }
  lastHistory = { key, workspaces };
  return workspaces;
}

/** A JSON file the extensions keep beside a task's history, parsed; undefined when absent, too large or not JSON. */
export async function readJson(file: string): Promise<unknown> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_BYTES) return undefined;
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}
