import type { SecretMatch } from './loaded-detector.js';

/** What a secret of this kind is replaced with, in shared outputs and by the `redact-secrets` strategy. */
export function secretPlaceholder(kind: string): string {
  return `[secret: ${kind}]`;
}

/** `text` with each match replaced by its placeholder. */
export function replaceSecrets(text: string, matches: readonly SecretMatch[]): string {
  let out = '';
  let at = 0;
  for (const m of matches) {
    out += text.slice(at, m.start) + secretPlaceholder(m.kind);
    at = m.end;
  }
  return out + text.slice(at);
}
