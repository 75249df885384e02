import type { Transcript } from '../model/transcript.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { type ArchiveBasePrompt, ArchiveBasePrompts } from './base-prompt.js';
import { ArchiveTokenScale, type TokenScale, measureTokenScale } from './billing/token-ratio.js';

/** What the replay takes from the whole archive for a transcript that lacks it (see ReplayOptions). */
export interface ArchiveFallbackOptions {
  tokenScaleFallback?: TokenScale;
  basePromptFallback?: Record<string, ArchiveBasePrompt>;
}

/**
 * The archive's token scale (with `tokenRatio: 'recorded'`) and base prompts (with `basePrompt: 'recorded'`), measured
 * in one pass before the replay, as `simulate` and `tune` replay with them.
 */
export class ArchiveFallbacks {
  private readonly scales: ArchiveTokenScale | undefined;
  private readonly bases: ArchiveBasePrompts | undefined;

  constructor(
    private readonly tokenizer: Tokenizer,
    o: { tokenRatio: number | 'recorded'; basePrompt: number | 'recorded' },
  ) {
    this.scales = o.tokenRatio === 'recorded' ? new ArchiveTokenScale() : undefined;
    this.bases = o.basePrompt === 'recorded' ? new ArchiveBasePrompts(tokenizer, o.tokenRatio) : undefined;
  }

  /** Whether the replay takes anything from the archive: else no pass is needed. */
  get needed(): boolean {
    return this.scales !== undefined || this.bases !== undefined;
  }

  /** One transcript of the pass, in input order. */
  add(item: { transcript: Transcript; format?: string }): void {
    const own = this.scales ? { measure: measureTokenScale(item.transcript, this.tokenizer) } : undefined;
    this.scales?.add(own?.measure);
    this.bases?.add(item, own);
  }

  /** Once the pass is over: what it measured. */
  options(): ArchiveFallbackOptions {
    const tokenScaleFallback = this.scales?.median();
    const basePromptFallback = this.bases?.medians(tokenScaleFallback);
    return { ...(tokenScaleFallback ? { tokenScaleFallback } : {}), ...(basePromptFallback ? { basePromptFallback } : {}) };
  }
}
