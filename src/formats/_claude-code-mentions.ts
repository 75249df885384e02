/**
 * The files a Claude Code prompt names with `@` (`@src/app.ts`, `@"docs/a b.md"`, `@src/app.ts#L10-20`): Claude Code
 * reads each one and sends its content with the prompt, as the Read tool would return it. Up to 2.1.128 that content
 * is in no record (from then on it is an `attachment` record of type `file`, see _claude-code-attachments.ts). A
 * mention starts the text or follows white space; a subagent (`@agent-…`) or an MCP resource (`@server:uri`) is not a
 * file, and a word without a dot or a slash (`@moduledoc`, `@param`) is taken for code, not a path.
 */
export function fileMentions(text: string): string[] {
  const out: string[] = [];
  const add = (raw: string) => {
    const path = raw.replace(/#L\d+(-\d+)?$/, '').replace(/[,;:!?)\]}'"`]+$/, '');
    if (path === '' || path.startsWith('agent-') || /^[\w-]+:/.test(path) || !/[./]/.test(path) || /^\.+$/.test(path)) return;
    if (!out.includes(path)) out.push(path);
  };
  for (const m of text.matchAll(/(?:^|\s)@"([^"]+)"/g)) add(m[1]);
  for (const m of text.matchAll(/(?:^|\s)@([^\s"]+)/g)) add(m[1].replace(/\.$/, ''));
  return out;
}
