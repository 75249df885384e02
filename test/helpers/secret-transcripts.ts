import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type PlantedSecret, plantedSecrets } from './planted-secrets.js';

/**
 * Made-up transcripts with a planted secret of every kind in every place an agent meets one: the user's text, a tool
 * call's arguments, a tool result and an error result, in a canonical archive (OpenAI chat JSONL, the shape of
 * docs/formats.md) and in a Claude Code session (the record shape of datasets/bundled/claude-code: `user`/`assistant`
 * records with `message`, `tool_use` and `tool_result` blocks, `is_error`, `uuid`/`parentUuid`). Each transcript has
 * enough old tool output for compaction to replace some, so lost probes and replaced pieces carry secrets too.
 */
export interface SecretCorpus {
  /** The folder holding `archive.jsonl` and `claude-code/session.jsonl`. */
  dir: string;
  archive: string;
  session: string;
  secrets: PlantedSecret[];
}

const FILLER = 'The build compiled the module graph, ran the linter over every package and wrote the bundle. ';

function canonical(id: string, secrets: PlantedSecret[], payload: string): object {
  const messages: object[] = [{ role: 'system', content: 'You are a coding agent.' }];
  secrets.forEach((s, i) => {
    const call = `call_${id}_${i}${payload}`;
    const failing = i % 3 === 2;
    messages.push(
      { role: 'user', content: `Please deploy with this: ${s.line} ${payload}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call, type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command: `echo '${s.line}' > .env && ./deploy.sh` }) } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: call,
        content: failing
          ? `Error: deploy failed, ${s.line} was refused (exit 1) ${payload}\n${FILLER.repeat(20)}`
          : `cat .env\n${s.line}\n${payload}${FILLER.repeat(30)}`,
      },
    );
  });
  messages.push({ role: 'user', content: 'Thanks, all done.' }, { role: 'assistant', content: 'Deployed.' });
  return { id: `${id}${payload}`, messages };
}

function claudeCodeSession(secrets: PlantedSecret[], payload: string): string {
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: `/home/user/app${payload}`,
    sessionId: `secret-session${payload}`,
    version: '2.1.38',
    gitBranch: 'main',
  };
  const lines: object[] = [];
  let parent: string | null = null;
  let n = 0;
  const add = (record: object): void => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, ...base, ...record, uuid, timestamp: new Date(Date.UTC(2026, 1, 10, 21, 0, n)).toISOString() });
    parent = uuid;
  };
  secrets.forEach((s, i) => {
    const tool = `toolu_${String(i).padStart(20, '0')}${payload}`;
    add({ type: 'user', message: { role: 'user', content: `My credentials: ${s.line} ${payload}` } });
    add({
      type: 'assistant',
      message: {
        model: `claude-opus-4-6${payload}`,
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'tool_use', id: tool, name: `Bash${payload}`, input: { command: s.bare ? `grep -r '${s.value}' .` : `echo '${s.line}' >> .env` } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 1000 * i, output_tokens: 20 },
      },
    });
    add({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool, content: `${s.line}\n${FILLER.repeat(25)}`, is_error: i % 2 === 1 }] },
    });
  });
  add({
    type: 'assistant',
    message: {
      model: 'claude-opus-4-6',
      id: 'msg_end',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
    },
  });
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/**
 * `payload`, when given, is added to every field a page shows: transcript and tool-call ids, tool names, arguments,
 * results, user text, model names and the project folder.
 */
export function writeSecretCorpus(dir: string, payload = ''): SecretCorpus {
  const secrets = plantedSecrets();
  mkdirSync(join(dir, 'claude-code'), { recursive: true });
  const archive = join(dir, 'archive.jsonl');
  const session = join(dir, 'claude-code', 'session.jsonl');
  writeFileSync(
    archive,
    `${[canonical('deploy-1', secrets, payload), canonical('deploy-2', [...secrets].reverse(), payload)].map((t) => JSON.stringify(t)).join('\n')}\n`,
  );
  writeFileSync(session, claudeCodeSession(secrets, payload));
  return { dir, archive, session, secrets };
}
