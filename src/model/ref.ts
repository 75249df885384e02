/** Hex characters of a ref: the first 64 bits of the SHA-256 of the stored data (refs/ref-store.ts). */
export const REF_LENGTH = 16;

const NAMED_REF = new RegExp(`\\(ref: ([0-9a-f]{${REF_LENGTH}})\\)`, 'g');

/** The refs a placeholder names, `(ref: <16 hex>)` each, in order of appearance. */
export function refsNamedIn(text: string): string[] {
  return [...text.matchAll(NAMED_REF)].map((m) => m[1]);
}
