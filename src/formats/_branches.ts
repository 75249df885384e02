/** Where a record sits among the branches of a session file whose `parentUuid` tree forks (see {@link findBranches}). */
export interface BranchMark {
  /** The branch the record is on: 0 for the first, from the root; absent on the first. */
  thread?: number;
  /** The record is the last one before a fork: the branches that start after it share everything up to it. */
  branchPoint?: number;
  /** The record starts a branch other than the first, after the fork of this `branchPoint`. */
  branchFrom?: number;
}

/** What findBranches needs of a record: its id, its parent, and whether it is a prompt or a model call. */
export interface BranchNode {
  id: string | undefined;
  parent: string | undefined;
  /** A user prompt (not a tool result, not client text). */
  prompt: boolean;
  /** A reply a model answered (with usage). */
  call: boolean;
}

/**
 * The branches of a session's records (in parent order: each after its parent), by record index. A record forks the
 * session when two or more of its children start a subtree with a user prompt and a model call of its own: two
 * processes writing the same file (a second window, `--resume` of a session still running), each going on from the
 * same record. The first such child (in file order) goes on with its parent's thread, each other one starts a thread of
 * its own. The ordinary parallel-tool shape is no fork: a `tool_use` record's children are the next block of the same
 * reply and a tool result, and only one of them goes on to a prompt. A file with no fork has no marks (empty map).
 */
export function findBranches(nodes: readonly BranchNode[]): Map<number, BranchMark> {
  const indexById = new Map<string, number>();
  nodes.forEach((n, i) => n.id !== undefined && !indexById.has(n.id) && indexById.set(n.id, i));
  const parentOf = nodes.map((n) => (n.parent === undefined ? undefined : indexById.get(n.parent)));
  // Whether each record's subtree (itself included) holds a prompt and a call: children come after their parent.
  const prompt = nodes.map((n) => n.prompt);
  const call = nodes.map((n) => n.call);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const p = parentOf[i];
    if (p === undefined || p >= i) continue;
    prompt[p] ||= prompt[i];
    call[p] ||= call[i];
  }
  const branchChildren = new Map<number, number[]>();
  nodes.forEach((_, i) => {
    const p = parentOf[i];
    if (p === undefined || p >= i || !prompt[i] || !call[i]) return;
    const list = branchChildren.get(p);
    if (list) list.push(i);
    else branchChildren.set(p, [i]);
  });
  const forks = [...branchChildren].filter(([, children]) => children.length > 1);
  const marks = new Map<number, BranchMark>();
  if (forks.length === 0) return marks;
  const startsThread = new Map<number, { point: number }>();
  forks.forEach(([parent, children], point) => {
    marks.set(parent, { branchPoint: point });
    for (const child of children.slice(1)) startsThread.set(child, { point });
  });
  const thread = new Array<number>(nodes.length).fill(0);
  let threads = 0;
  nodes.forEach((_, i) => {
    const start = startsThread.get(i);
    const p = parentOf[i];
    thread[i] = start ? ++threads : p !== undefined && p < i ? thread[p] : 0;
    const mark = marks.get(i) ?? {};
    if (thread[i] > 0) mark.thread = thread[i];
    if (start) mark.branchFrom = start.point;
    if (Object.keys(mark).length > 0) marks.set(i, mark);
  });
  return marks;
}
