import { readFileSync } from 'node:fs';
import { ContextManager } from '../../../context/context-manager.js';
import { parseContextManagerOptions } from '../../../context/options.js';
import { TcompactError } from '../../../errors.js';
import { parseConfig } from '../../../model/parse.js';
import type { Policy } from '../policy.js';
import { AiSdkPruneSchema, aiSdkPrune } from './ai-sdk-prune.js';
import { AnthropicContextManagementSchema, anthropicContextEditing } from './anthropic-context-editing.js';
import { LangChainClearToolUsesSchema, langChainContextEditing } from './langchain-context-editing.js';

/** The runtimes whose exported settings `simulate --policy RUNTIME:FILE` replays with that runtime's semantics. */
export const RUNTIME_PREFIXES = ['anthropic', 'langchain', 'ai-sdk', 'config'] as const;
type Runtime = (typeof RUNTIME_PREFIXES)[number];

const RUNTIME_POLICY = /^(anthropic|langchain|ai-sdk|config):(.+)$/;

export function isRuntimePolicy(name: string): boolean {
  return RUNTIME_POLICY.test(name);
}

function readJson(path: string, name: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TcompactError('E_USAGE', `policy "${name}": cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TcompactError('E_CONFIG', `policy "${name}": ${path} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * `anthropic:FILE` (a Messages API `context_management` object), `langchain:FILE` (`ClearToolUsesEdit` options),
 * `ai-sdk:FILE` (`pruneMessages` options) or `config:FILE` (`ContextManager` options), validated when the policy is named
 * so a bad file stops the run before any replay. Anthropic's and the AI SDK's run before every call on the full history,
 * as those runtimes edit each prompt afresh; LangChain's before every call on the history as it left it, as its
 * middleware edits the agent's own messages; the last is a ContextManager made from the file, as an agent would
 * construct it.
 */
export function runtimePolicy(name: string): Policy {
  const [, runtime, path] = RUNTIME_POLICY.exec(name) as unknown as [string, Runtime, string];
  const json = readJson(path, name);
  const source = `policy "${name}"`;
  switch (runtime) {
    case 'anthropic': {
      const config = parseConfig(AnthropicContextManagementSchema, json, { source });
      return {
        name,
        summary: `Anthropic context editing (clear_tool_uses) as ${path} sets it, applied to every prompt`,
        requires: [],
        instantiate: (env) => ({ micro: anthropicContextEditing(config, env.tokenizer), microIsCompaction: true }),
      };
    }
    case 'langchain': {
      const edit = parseConfig(LangChainClearToolUsesSchema, json, { source });
      return {
        name,
        summary: `LangChain's context-editing middleware with the ClearToolUsesEdit of ${path}, its clears kept in the agent's history`,
        requires: [],
        instantiate: (env) => ({ micro: langChainContextEditing(edit, env.tokenizer), microIsCompaction: true }),
      };
    }
    case 'ai-sdk': {
      const options = parseConfig(AiSdkPruneSchema, json, { source });
      return {
        name,
        summary: `the AI SDK's pruneMessages with the options of ${path}, on every prompt`,
        requires: [],
        instantiate: (env) => ({ micro: aiSdkPrune(options, env.tokenizer), microIsCompaction: true }),
      };
    }
    case 'config': {
      let options: ReturnType<typeof parseContextManagerOptions>;
      try {
        options = parseContextManagerOptions(json);
      } catch (err) {
        throw new TcompactError('E_CONFIG', `${source}: ${(err as Error).message}`);
      }
      // Built once here so a bad strategy name in the file is refused before the replay (the constructor checks them).
      void new ContextManager(options);
      // A file that names no cache is told the transcript's, as an agent sets its provider's (the `default` policy too).
      const ownCache = typeof json !== 'object' || json === null || !('cache' in json);
      return {
        name,
        summary: `ContextManager with the options of ${path}`,
        requires: [...new Set([...options.micro, ...options.edits, ...options.strategies])],
        instantiate: (env) => ({
          manager: new ContextManager(
            {
              ...options,
              ...(ownCache ? { cache: env.cache.name } : {}),
              tools: options.tools ?? env.tools,
              extraTokens: options.extraTokens || env.basePrompt,
            },
            undefined,
            // The replay's own counter (scaled to the provider's tokens, with --token-ratio) when the file counts alike.
            env.tokenizer.name === options.tokenizer ? env.tokenizer : undefined,
          ),
        }),
      };
    }
  }
}
