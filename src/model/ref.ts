/** Hex characters of a ref: the first 64 bits of the SHA-256 of the stored data (refs/ref-store.ts). */
export const REF_LENGTH = 16;
