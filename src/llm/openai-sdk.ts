import type OpenAI from 'openai';

type Sdk = typeof import('openai');

let loading: Promise<Sdk> | undefined;

/**
 * The official SDK, loaded on first use: some 150 modules and ~170 ms of CPU that every start of the CLI and of a
 * `tcompact worker` would pay, though only a run with a model ever sends a request.
 */
export function loadOpenAI(): Promise<Sdk> {
  return (loading ??= import('openai'));
}

/** A client of the SDK, made on first use (see {@link loadOpenAI}). */
export function lazyClient(options: ConstructorParameters<typeof OpenAI>[0]): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => (client ??= loadOpenAI().then((sdk) => new sdk.default(options)));
}
