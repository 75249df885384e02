/**
 * The blocks of one aider chat-history session, from its lines. aider appends to `.aider.chat.history.md` as it goes
 * (aider/io.py `append_chat_history`):
 * - user input: every line prefixed `#### ` and ended with two spaces (a Markdown line break), after a blank line;
 * - aider's own output (tool output, warnings, command results): `> ` + the text + two spaces. One output record is one
 *   line in current versions; older versions prefixed only the first line of a multi-line text, so a record that
 *   starts with `>` runs until a line that ends with the two spaces;
 * - the model's reply: a blank line, the reply, a blank line, with no prefix.
 * A reply can hold Markdown quotes (`> x`) and headings (`#### x`) itself; inside a reply such a line starts a new
 * block only when it ends with aider's two spaces or comes after two blank lines (a reply ends with one blank line and
 * user input starts with another).
 */

export type AiderBlock =
  { kind: 'user'; line: number; text: string } | { kind: 'output'; line: number; text: string } | { kind: 'reply'; line: number; text: string };

const USER_LINE = /^####( |$)/;
const OUTPUT_LINE = /^>( |$)/;
const BREAK = '  ';

/** Collects the blocks of a session, one line at a time (the session header excluded). */
export class AiderBlockReader {
  readonly blocks: AiderBlock[] = [];
  private current: { kind: AiderBlock['kind']; line: number; lines: string[] } | undefined;
  /** An output record whose first line had no line break: its text goes on until a line that has one. */
  private openRecord = false;
  private blanks = 0;
  /** Inside a reply, a `>` line without a line break: a quote of the reply, or the first line of an output record. */
  private maybeRecord: { line: number; lines: string[] } | undefined;

  add(text: string, line: number): void {
    if (this.maybeRecord) {
      const pending = this.maybeRecord;
      if (text.trim() !== '') {
        pending.lines.push(text);
        if (!text.endsWith(BREAK)) return;
        this.maybeRecord = undefined;
        this.start('output', pending.line);
        this.current!.lines.push(...pending.lines);
        return;
      }
      // A blank line before any line break: it was a quote in the reply.
      this.maybeRecord = undefined;
      this.current!.lines.push(...pending.lines);
    }
    if (this.openRecord) {
      this.current!.lines.push(text);
      if (text.endsWith(BREAK)) this.openRecord = false;
      return;
    }
    if (text.trim() === '') {
      this.blanks++;
      if (this.current?.kind === 'reply') this.current.lines.push(text);
      return;
    }
    const blanks = this.blanks;
    this.blanks = 0;
    const marked = text.endsWith(BREAK) || blanks >= 2;
    const inReply = this.current?.kind === 'reply';
    if (USER_LINE.test(text) && (!inReply || marked)) {
      if (this.current?.kind !== 'user' || blanks > 0) this.start('user', line);
      this.current!.lines.push(text);
      return;
    }
    if (OUTPUT_LINE.test(text) && inReply && !marked && blanks === 1) {
      // After a reply, an older aider's multi-line output record (`> Tokens: ...` then `Cost: ...  `) starts without a
      // line break: it is output if a line break comes before the next blank line.
      this.maybeRecord = { line, lines: [text] };
      return;
    }
    if (OUTPUT_LINE.test(text) && (!inReply || marked)) {
      if (this.current?.kind !== 'output') this.start('output', line);
      this.current!.lines.push(text);
      if (!text.endsWith(BREAK)) this.openRecord = true;
      return;
    }
    if (!inReply) this.start('reply', line);
    this.current!.lines.push(text);
  }

  /** The blocks read, the last one closed. */
  finish(): AiderBlock[] {
    if (this.maybeRecord) this.current!.lines.push(...this.maybeRecord.lines);
    this.maybeRecord = undefined;
    this.close();
    return this.blocks;
  }

  private start(kind: AiderBlock['kind'], line: number): void {
    this.close();
    this.current = { kind, line, lines: [] };
  }

  private close(): void {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    this.openRecord = false;
    this.blocks.push({ kind: c.kind, line: c.line, text: blockText(c.kind, c.lines) });
  }
}

function blockText(kind: AiderBlock['kind'], lines: string[]): string {
  if (kind === 'reply') {
    let end = lines.length;
    while (end > 0 && lines[end - 1].trim() === '') end--;
    return lines.slice(0, end).join('\n');
  }
  if (kind === 'user') return lines.map((l) => unbreak(l).replace(/^####( |$)/, '')).join('\n');
  // Output: strip the marker of each record's first line and the break of each record's last line.
  const out: string[] = [];
  let recordOpen = false;
  for (const l of lines) {
    const ends = l.endsWith(BREAK);
    let t = unbreak(l);
    if (!recordOpen) t = t.replace(/^> ?/, '');
    out.push(t);
    recordOpen = !ends;
  }
  return out.join('\n');
}

function unbreak(line: string): string {
  return line.endsWith(BREAK) ? line.slice(0, -BREAK.length) : line;
}
