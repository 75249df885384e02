import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A replay thread's task run in a fresh Node process against the built modules, as a replay worker runs it: nothing
 * there loaded the secret rules (vitest's thread has them through other imports). Prints whether the rules were
 * loaded before the task, and what the task gave back.
 */
function replayInFreshThread(policies: string[]): { loadedBefore: boolean; outcome: { ok: boolean; value?: unknown; error?: { code: string } } } {
  const at = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', path)).href);
  const script = `
    const { replayTask } = await import(${at('replay/replay-task.js')});
    const { loadedDetector } = await import(${at('secrets/loaded-detector.js')});
    const loadedBefore = loadedDetector() !== undefined;
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const transcript = { id: 't', messages: [
      { role: 'user', content: 'deploy with my token ' + secret },
      { role: 'assistant', content: 'Deployed.' },
      { role: 'user', content: 'and once more with ' + secret },
      { role: 'assistant', content: 'Done again.' },
    ] };
    const settings = { policies: ${JSON.stringify(policies)}, window: 20000, tokenizer: { name: 'heuristic', engine: null }, prices: { input: 3, output: 15 } };
    const outcome = await replayTask({ settings, transcript, source: { file: 't.jsonl', line: 1 } });
    console.log(JSON.stringify({ loadedBefore, outcome }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

interface Run {
  microCompactions: number;
  firstPrompt: number;
  billedInput: number;
}

describe('a replay thread prepares the strategies its policies run', () => {
  it('redact-secrets masks in a thread that never loaded the rules, before any replay of it', () => {
    const { loadedBefore, outcome } = replayInFreshThread(['redact-secrets@every']);
    expect(loadedBefore).toBe(false);
    expect(outcome.error).toBeUndefined();
    const policies = (outcome.value as { result: { policies: Record<string, Run> } }).result.policies;
    const redacted = policies['redact-secrets@every'];
    // Each call's prompt held a token the step masked: it compacted before both calls, and sent another first prompt.
    expect(redacted.microCompactions).toBe(2);
    expect(redacted.firstPrompt).not.toBe(policies.none.firstPrompt);
    expect(redacted.billedInput).not.toBe(policies.none.billedInput);
  });

  it('so does a ContextManager made from a config file that runs redact-secrets on every call', () => {
    const file = join(tempDir('replay-prepare'), 'manager.json');
    writeFileSync(file, JSON.stringify({ micro: ['redact-secrets'], edits: [], window: 20000 }));
    const policy = `config:${file}`;
    const { loadedBefore, outcome } = replayInFreshThread([policy]);
    expect(loadedBefore).toBe(false);
    expect(outcome.error).toBeUndefined();
    const policies = (outcome.value as { result: { policies: Record<string, Run> } }).result.policies;
    expect(policies[policy].microCompactions).toBe(2);
    expect(policies[policy].firstPrompt).not.toBe(policies.none.firstPrompt);
  });
});
