import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintRuleCreator, SecretLintRuleReportHandler, SecretLintSourceCode } from '@secretlint/types';
import { EXTRA_RULES } from './extra-rules.js';
import { detectorLoaded, type SecretMatch } from './loaded-detector.js';

/** The preset's comment filter is left out: a transcript saying `secretlint-disable` must not unmask what follows. */
const FILTER_RULE = '@secretlint/secretlint-rule-filter-comments';

/**
 * Messages left alone: AWS account ids (12 digits after `account_id`) identify, they do not authenticate. The preset's
 * AWS rule runs without `enableIDScanRule` (its account-id scan is the costliest expression of the preset); access key
 * ids are found by tcompact's rule of the same pattern.
 */
const RULE_OPTIONS: Record<string, object> = {};
const IGNORED_MESSAGES = new Set(['AWSAccountID']);

/** Kind names by message id (and by rule for rules with one message); any other rule is named after its id. */
const KINDS: Record<string, string> = {
  AWSAccessKeyID: 'aws-access-key-id',
  AWS_ACCESS_KEY_ID: 'aws-access-key-id',
  AWSSecretAccessKey: 'aws-secret-access-key',
  AWS_PAIRED_SECRET: 'aws-secret-access-key',
  PrivateKeyJSON: 'gcp-service-account-key',
  PrivateKeyP12: 'gcp-service-account-key',
  GCP_SERVICE_ACCOUNT_KEY_ID: 'gcp-service-account-key',
  PrivateKey: 'private-key',
  ESCAPED_PRIVATE_KEY: 'private-key',
  PackageJSON_xOauthToken: 'github-token',
  Npmrc_authToken: 'npm-token',
  NPM_ACCESS_TOKEN: 'npm-token',
  BasicAuth: 'url-password',
  URL_PASSWORD: 'url-password',
  MongoDBConnection: 'connection-string',
  MySQLConnection: 'connection-string',
  PostgreSQLConnection: 'connection-string',
  GITHUB_TOKEN: 'github-token',
  SLACK_TOKEN: 'slack-token',
  IncomingWebhook: 'slack-webhook',
  OPENAI_TOKEN: 'openai-key',
  ANTHROPIC_API_KEY: 'anthropic-key',
  ANTHROPIC_KEY: 'anthropic-key',
  GITLAB_TOKEN: 'gitlab-token',
  STRIPE_KEY: 'stripe-key',
};

function kindOf(ruleId: string, messageId: string): string {
  return KINDS[messageId] ?? ruleId.replace(/^.*secretlint-rule-|^tcompact\//, '');
}

/** A text as secretlint's rules read it: no file, so file-type rules (`.npmrc`, `.json`, `.p12`) apply their text checks. */
function sourceOf(content: string): SecretLintSourceCode {
  const unsupported = (): never => {
    throw new Error('secret scan: positions are not computed');
  };
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    locationToRange: unsupported,
    rangeToLocation: unsupported,
    positionToIndex: unsupported,
    indexToPosition: unsupported,
  };
}

/**
 * Where the secret a rule reported is. Some rules report a captured group with the range of the whole match's start
 * and the group's length (AWS's secret access key after `aws_secret_access_key =`, npm's `_authToken=`): the range
 * then holds the name and part of the secret. The reported value, when the range does not hold it, is looked for from
 * the range's start.
 */
function secretRange(text: string, range: readonly [number, number], data: unknown): [number, number] {
  const [start, end] = range;
  if (data === null || typeof data !== 'object') return [start, end];
  for (const value of Object.values(data)) {
    if (typeof value !== 'string' || value.length !== end - start || text.slice(start, end) === value) continue;
    const at = text.indexOf(value, start);
    if (at >= 0) return [at, at + value.length];
  }
  return [start, end];
}

interface BoundRule {
  handler: SecretLintRuleReportHandler;
}

/**
 * secretlint's rules, driven synchronously. `@secretlint/core`'s `lintSource` is async and builds every rule again for
 * each source; the rules themselves are synchronous for text (only the `.p12` check of the GCP rule awaits, and a text
 * has no file). Driving the same rule objects through their documented context keeps strategies pure and synchronous
 * and scans one text in a few regular-expression passes (test/secrets/detector.test.ts checks this finds what
 * `lintSource` finds).
 */
class Scanner {
  private readonly bound: BoundRule[] = [];
  private found: SecretMatch[] = [];
  private text = '';

  constructor(creators: readonly SecretLintRuleCreator[]) {
    for (const creator of creators) {
      if (creator.meta.id === FILTER_RULE) continue;
      const ruleId = creator.meta.id;
      const context: SecretLintRuleContext = {
        sharedOptions: {},
        createTranslator: (messages) => (messageId, props) => ({
          message: messages[messageId as string]?.en(props) ?? String(messageId),
          messageId: String(messageId),
          data: props,
        }),
        report: (descriptor) => {
          const { messageId } = descriptor.message;
          if (IGNORED_MESSAGES.has(messageId)) return;
          const [start, end] = secretRange(this.text, descriptor.range, descriptor.message.data);
          if (end > start) this.found.push({ start, end, kind: kindOf(ruleId, messageId) });
        },
        ignore: () => undefined,
      };
      this.bound.push({ handler: creator.create(context, (RULE_OPTIONS[ruleId] ?? {}) as never) });
    }
  }

  scan(text: string): SecretMatch[] {
    this.found = [];
    this.text = text;
    const source = sourceOf(text);
    for (const { handler } of this.bound) {
      // Only the GCP rule's `.p12` branch returns a promise, and a text is never a `.p12` file.
      void handler.file?.(source);
    }
    return mergeOverlaps(this.found);
  }
}

/** Sorted by start; overlapping matches become one, of the kind of the one that starts first (the longer on a tie). */
function mergeOverlaps(found: SecretMatch[]): SecretMatch[] {
  if (found.length <= 1) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretMatch[] = [];
  for (const m of found) {
    const last = out.at(-1);
    if (last && m.start < last.end) last.end = Math.max(last.end, m.end);
    else out.push({ ...m });
  }
  return out;
}

let scanner: Scanner | undefined;

/** The rules every scan runs: the recommended preset's (less its comment filter) and tcompact's {@link EXTRA_RULES}. */
export const SECRET_RULES: readonly SecretLintRuleCreator[] = [...(presetRules as SecretLintRuleCreator[]), ...EXTRA_RULES];

/**
 * The secrets in `text`, in order, never overlapping. Texts too short to hold any credential the rules know are not
 * scanned (the shortest, a Slack token, has a 4-letter prefix and two parts).
 */
export function findSecrets(text: string): SecretMatch[] {
  if (text.length < 8) return [];
  scanner ??= new Scanner(SECRET_RULES);
  return scanner.scan(text);
}

detectorLoaded(findSecrets);
