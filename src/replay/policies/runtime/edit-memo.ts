import type { Message } from '../../../model/message.js';

/**
 * Edited copies of messages, by original message and by what was done to it, so that a prompt edited again from the
 * full history holds the very same objects wherever the edit is the same: the replay's prompt cache recognises a
 * prefix by its messages, and a runtime that edits each prompt afresh still keeps its earlier edits cacheable.
 */
export class EditMemo {
  private readonly edits = new Map<Message, Map<string, Message>>();

  get<M extends Message>(original: Message, edit: string, make: () => M): M {
    let byEdit = this.edits.get(original);
    if (!byEdit) this.edits.set(original, (byEdit = new Map()));
    let edited = byEdit.get(edit) as M | undefined;
    if (!edited) byEdit.set(edit, (edited = make()));
    return edited;
  }
}
