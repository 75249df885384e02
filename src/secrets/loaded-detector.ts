/** One secret in a text: the UTF-16 range `[start, end)` and its kind (`aws-access-key-id`, `github-token`...). */
export interface SecretMatch {
  start: number;
  end: number;
  kind: string;
}

/** The secret scan of `detector.ts`: the secrets in a text, in order, never overlapping. */
export type FindSecrets = (text: string) => SecretMatch[];

let loaded: FindSecrets | undefined;

/** Called by `detector.ts` as it is evaluated: from then on the scan is available to code that did not import it. */
export function detectorLoaded(find: FindSecrets): void {
  loaded = find;
}

/**
 * The scan, when `detector.ts` has been loaded in this thread, else undefined. Loading it costs secretlint's preset,
 * which a worker only pays for a step that scans (`redact-secrets`, prepared with `await import()`): the preset is
 * ESM-only and Node 20.12 cannot `require` it, so no synchronous code path can load it on demand.
 */
export function loadedDetector(): FindSecrets | undefined {
  return loaded;
}
