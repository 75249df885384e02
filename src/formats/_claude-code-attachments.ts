import { isObject } from './_items.js';

/**
 * The `attachment` records Claude Code 2.1.128+ logs for what it adds to the next request beside the conversation, of
 * the kinds it re-sends after a compaction: a file read again (`file`), a file too large to re-send named
 * (`compact_file_reference`), the plan (`plan_file_reference`), the skills invoked (`invoked_skills`) and the tools
 * announced (`deferred_tools_delta`). Each becomes the text the model is sent, as a client-added user message; the
 * wording around the logged content is Claude Code's in substance, not to the character (a few dozen tokens each).
 * Other attachment kinds (hook output, todo and date reminders...) stay skipped records.
 */
export function attachmentText(attachment: unknown): { type: string; text: string } | undefined {
  if (!isObject(attachment) || typeof attachment.type !== 'string') return undefined;
  const a = attachment;
  const name = typeof a.displayPath === 'string' ? a.displayPath : typeof a.filename === 'string' ? a.filename : undefined;
  const reminder = (text: string) => ({ type: a.type as string, text: `<system-reminder>\n${text}\n</system-reminder>` });
  switch (a.type) {
    case 'file': {
      const file = isObject(a.content) && isObject(a.content.file) ? a.content.file : undefined;
      if (name === undefined || typeof file?.content !== 'string') return undefined;
      return reminder(
        `Called the Read tool with the following input: ${JSON.stringify({ file_path: a.filename ?? name })}\nResult of calling the Read tool:\n${numbered(file.content, typeof file.startLine === 'number' ? file.startLine : 1)}`,
      );
    }
    case 'compact_file_reference':
      return name === undefined
        ? undefined
        : reminder(
            `Note: ${name} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it.`,
          );
    case 'plan_file_reference':
      return typeof a.planContent === 'string'
        ? reminder(`A plan file exists from plan mode at: ${typeof a.planFilePath === 'string' ? a.planFilePath : ''}\n\nPlan contents:\n\n${a.planContent}`)
        : undefined;
    case 'invoked_skills': {
      const skills = Array.isArray(a.skills) ? a.skills.filter(isObject) : [];
      const texts = skills.map((s) => `### Skill: ${typeof s.name === 'string' ? s.name : ''}\n\n${typeof s.content === 'string' ? s.content : ''}`);
      return texts.length > 0 ? reminder(`The following skills were invoked in this session:\n\n${texts.join('\n\n---\n\n')}`) : undefined;
    }
    case 'deferred_tools_delta': {
      const lines = Array.isArray(a.addedLines) ? a.addedLines.filter((l): l is string => typeof l === 'string') : [];
      return lines.length > 0 ? reminder(`The following deferred tools are now available via ToolSearch:\n${lines.join('\n')}`) : undefined;
    }
    default:
      return undefined;
  }
}

/** A file's text as the Read tool returns it: each line after its number and a tab. */
function numbered(content: string, startLine: number): string {
  return content
    .split('\n')
    .map((line, i) => `${String(startLine + i).padStart(6)}\t${line}`)
    .join('\n');
}
