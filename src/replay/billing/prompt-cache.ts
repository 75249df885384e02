import type { CacheRules } from '../../provider/cache-rules.js';

/** One call's prompt as the cache sees it: its messages (compared by identity), their sizes, and when it was sent. */
export interface CachedPrompt {
  /** The prompt's messages; the same object in two prompts is the same content. */
  messages: readonly object[];
  /** Tokens of message `i`. */
  tokensOf: (i: number) => number;
  /** Content blocks of message `i` (Anthropic's lookback counts blocks). */
  blocksOf: (i: number) => number;
  /** Tokens before the first message: system prompt and tool definitions. */
  baseTokens: number;
  /** When the call was made, in milliseconds. */
  atMs: number;
  /**
   * Tokens of the base prefix (from the start) that the provider held in its cache at this call from outside this
   * conversation: another session or subagent with the same system prompt and tools had just sent it. @default 0
   */
  warmBase?: number;
  /**
   * Tokens of the base prefix the provider is known to have read at this call (its recorded cache read), when that is
   * less than the whole base: the provider then held nothing longer, whatever the messages, because the base itself
   * changed after that many tokens (Claude Code rewrites its system prompt when an MCP server reconnects or after its
   * own compaction). Every entry of this conversation is gone and the call reads that much. @default none
   */
  baseHeld?: number;
}

/** How one call's input was billed: `read` from the cache, `written` to it, the rest plain input. */
export interface CacheOutcome {
  read: number;
  written: number;
  /** Input neither read nor written (below the minimum, or with no cache at all). */
  uncached: number;
}

/**
 * One conversation's prompt cache under a provider's rules. A prefix of messages is a node of a trie (the same
 * message objects in the same order are the same node), so an entry written at one call is found at a later call
 * whose prompt starts with the same messages, whatever was compacted between them.
 */
export class PromptCache {
  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 0;
  private readonly children = new Map<string, number>();
  /** Node -> last use in ms. */
  private readonly entries = new Map<number, number>();
  private previous: { messages: readonly object[]; nodes: number[] } | undefined;

  constructor(private readonly rules: CacheRules) {}

  call(prompt: CachedPrompt): CacheOutcome {
    const n = prompt.messages.length;
    const cum = new Array<number>(n + 1);
    cum[0] = prompt.baseTokens;
    for (let i = 0; i < n; i++) cum[i + 1] = cum[i] + prompt.tokensOf(i);
    const total = cum[n];
    const shared = this.sharedWithPrevious(prompt.messages);
    const nodes = this.nodesOf(prompt.messages, shared);
    const hadPrevious = this.previous !== undefined;
    this.previous = { messages: prompt.messages.slice(), nodes };
    const held = prompt.baseHeld;
    if (held !== undefined && held < cum[0]) this.entries.clear();
    const warm = held !== undefined && held < cum[0] ? held : Math.min(prompt.warmBase ?? 0, cum[0]);
    switch (this.rules.kind) {
      case 'off':
        return { read: 0, written: 0, uncached: total };
      case 'previous': {
        // The shared prefix of the previous prompt, system prompt and tools included once there is one.
        const read = hadPrevious ? cum[shared] : warm;
        return { read, written: total - read, uncached: 0 };
      }
      case 'breakpoint':
        return this.breakpointCall(prompt, cum, nodes, warm);
      case 'prefix':
        return this.prefixCall(prompt.atMs, cum, nodes, warm);
    }
  }

  private live(node: number, atMs: number): boolean {
    const used = this.entries.get(node);
    if (used === undefined) return false;
    return this.rules.ttlSeconds === null || atMs - used <= this.rules.ttlSeconds * 1000;
  }

  /**
   * Anthropic: marks after the system prompt and tools and on the last message. The read is the longest live entry at
   * a block boundary within the lookback before the last mark, else the system mark's; the rest up to the last mark is
   * written when the prompt reaches the minimum, and the entries read or written are refreshed. With nothing live of its
   * own, the call reads the part of the base prefix held warm from outside (`warm`).
   */
  private breakpointCall(prompt: CachedPrompt, cum: number[], nodes: number[], warm: number): CacheOutcome {
    const { atMs } = prompt;
    const n = nodes.length - 1;
    const min = this.rules.minTokens;
    let hit = -1;
    let blocks = 0;
    for (let i = n; i >= 1 && blocks <= this.rules.lookbackBlocks; i--) {
      if (this.live(nodes[i], atMs)) {
        hit = i;
        break;
      }
      blocks += prompt.blocksOf(i - 1);
    }
    if (hit < 0 && (this.live(nodes[0], atMs) || (warm > 0 && warm === cum[0]))) hit = 0;
    const read = hit >= 0 ? cum[hit] : warm;
    if (hit >= 0) this.entries.set(nodes[hit], atMs);
    if (cum[0] >= min) this.entries.set(nodes[0], atMs);
    if (cum[n] < min) return { read, written: 0, uncached: cum[n] - read };
    this.entries.set(nodes[n], atMs);
    return { read, written: cum[n] - read, uncached: 0 };
  }

  /**
   * OpenAI: every prompt from the minimum up is cached whole (every prefix of it); a read is the longest live prefix,
   * counted in whole steps above the minimum. No write premium: what is not read is plain input.
   */
  private prefixCall(atMs: number, cum: number[], nodes: number[], warm: number): CacheOutcome {
    const n = nodes.length - 1;
    const { minTokens: min, step } = this.rules;
    let longest = warm;
    for (let i = n; i >= 0; i--) {
      if (this.live(nodes[i], atMs)) {
        longest = Math.max(longest, cum[i]);
        break;
      }
    }
    const read = longest >= min && min > 0 ? longest - ((longest - min) % step) : 0;
    if (cum[n] >= min) for (const node of nodes) this.entries.set(node, atMs);
    return { read, written: 0, uncached: cum[n] - read };
  }

  /** Leading messages the prompt shares (as the same objects) with the previous call's. */
  private sharedWithPrevious(messages: readonly object[]): number {
    const prev = this.previous?.messages;
    if (!prev) return 0;
    const end = Math.min(prev.length, messages.length);
    let i = 0;
    while (i < end && prev[i] === messages[i]) i++;
    return i;
  }

  /** The trie node of every prefix, from the empty one (node 0: system prompt and tools) to the whole prompt. */
  private nodesOf(messages: readonly object[], shared: number): number[] {
    const nodes = this.previous ? this.previous.nodes.slice(0, shared + 1) : [0];
    for (let i = nodes.length - 1; i < messages.length; i++) nodes.push(this.child(nodes[i], messages[i]));
    return nodes;
  }

  private child(parent: number, message: object): number {
    let id = this.objectIds.get(message);
    if (id === undefined) {
      id = this.nextObjectId++;
      this.objectIds.set(message, id);
    }
    const key = `${parent},${id}`;
    let node = this.children.get(key);
    if (node === undefined) {
      node = this.children.size + 1;
      this.children.set(key, node);
    }
    return node;
  }
}
