import { CHECKPOINT_PREFIX, SUMMARY_PREFIX, TANGENT_PREFIX } from '../model/compaction-marker.js';
import { ATTACHMENT_PREFIX, MASK_PREFIX, STRIP_PREFIX } from './_placeholders.js';
import { TRUNCATION_PREFIX } from './truncate.js';

/** Which strategy writes a placeholder, and whether it stands for whole messages (a span) or for one message's content. */
export interface StubOwner {
  strategy: string;
  /** The placeholder is a message of its own in place of several (a summary, a checkpoint, a truncation marker). */
  span: boolean;
}

/** Every placeholder by the text it starts with; no prefix is the beginning of another. */
const OWNERS: readonly (readonly [prefix: string, owner: StubOwner])[] = [
  [MASK_PREFIX, { strategy: 'mask-observations', span: false }],
  [STRIP_PREFIX, { strategy: 'strip-tool-results', span: false }],
  [ATTACHMENT_PREFIX, { strategy: 'strip-attachments', span: false }],
  [CHECKPOINT_PREFIX, { strategy: 'checkpoint', span: true }],
  [SUMMARY_PREFIX, { strategy: 'summarize', span: true }],
  [TANGENT_PREFIX, { strategy: 'classify-tangents', span: true }],
  [TRUNCATION_PREFIX, { strategy: 'truncate', span: true }],
];

/** The strategy whose placeholder `text` (a message's text, or one content part's) is; undefined for any other text. */
export function stubOwner(text: string): StubOwner | undefined {
  for (const [prefix, owner] of OWNERS) if (text.startsWith(prefix)) return owner;
  return undefined;
}
