import type { SecretLintRuleCreator, SecretLintRuleContext, SecretLintSourceCode } from '@secretlint/types';

/**
 * Rules for credentials that secretlint's recommended preset does not cover, written as secretlint rules so they run
 * beside the preset's: GitLab and Stripe tokens, GCP service-account keys printed inline (the preset only reads a whole
 * `.json` file), private keys inside text escaped more than once (a key file's JSON inside a tool call's JSON
 * arguments: the preset's check of the body stops at the second backslash), Anthropic keys other than `api0N`, and passwords in URLs of any scheme (the preset reads only http, ftp and
 * three databases, and only passwords of letters, digits, `-` and `_` in http URLs).
 */
function patternRule(
  id: string,
  messageId: string,
  what: string,
  pattern: RegExp,
  group = 0,
  keep?: (match: RegExpMatchArray) => boolean,
): SecretLintRuleCreator {
  const messages = { [messageId]: { en: (props?: { TOKEN?: string }) => `found ${what}: ${props?.TOKEN ?? ''}` } };
  return {
    messages,
    meta: { id, type: 'scanner', recommended: true, supportedContentTypes: ['text'] },
    create(context: SecretLintRuleContext) {
      const t = context.createTranslator(messages);
      return {
        file(source: SecretLintSourceCode) {
          for (const match of source.content.matchAll(pattern)) {
            if (keep && !keep(match)) continue;
            const span = match.indices?.[group];
            if (!span) continue;
            context.report({ message: t(messageId, { TOKEN: match[group] }), range: [span[0], span[1]] });
          }
        },
      };
    },
  };
}

/** Placeholders in URLs that are not passwords: `${PASS}`, `<password>`, `****`, `%s`, `...`. */
const PLACEHOLDER = /^(?:[*x.]+|.*[${}<>%].*|pass(?:word)?|secret|changeme|token)$/i;

export const EXTRA_RULES: SecretLintRuleCreator[] = [
  // The preset's AWS rule finds access key ids only with `enableIDScanRule`, which also scans for account ids (not
  // credentials) at four times the cost of the id alone: this is its id pattern, less AWS's documented example id.
  patternRule(
    'tcompact/aws-access-key-id',
    'AWS_ACCESS_KEY_ID',
    'AWS access key id',
    /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/dg,
    0,
    (m) => m[0] !== 'AKIAIOSFODNN7EXAMPLE',
  ),
  patternRule('tcompact/gitlab', 'GITLAB_TOKEN', 'GitLab token', /(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glptt|glsoat)-[A-Za-z0-9_-]{20,64}(?![A-Za-z0-9_-])/dg),
  patternRule('tcompact/stripe', 'STRIPE_KEY', 'Stripe key', /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,99}(?![A-Za-z0-9])/dg),
  patternRule(
    'tcompact/gcp-service-account',
    'GCP_SERVICE_ACCOUNT_KEY_ID',
    'GCP service-account key id',
    /\\*"private_key_id\\*"\s*:\s*\\*"([0-9a-f]{40})\\*"/dg,
    1,
  ),
  patternRule(
    'tcompact/escaped-private-key',
    'ESCAPED_PRIVATE_KEY',
    'private key in escaped text',
    /-----BEGIN[ A-Z]{0,20}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s]|\\+n|\\+){100,12000}?-----END[ A-Z]{0,20}PRIVATE KEY(?: BLOCK)?-----/dg,
  ),
  patternRule(
    'tcompact/anthropic',
    'ANTHROPIC_KEY',
    'Anthropic key',
    /(?<![A-Za-z0-9_-])sk-ant-(?!api0)[a-z]{3,8}0\d-[A-Za-z0-9_-]{80,128}(?![A-Za-z0-9_-])/dg,
  ),
  patternRule(
    'tcompact/url-password',
    'URL_PASSWORD',
    'password in a URL',
    /:\/\/[^\s:/@'"`]{0,100}:([^\s@/'"`]{1,200})@[A-Za-z0-9[]/dg,
    1,
    (m) => (m[1] ?? '').length >= 4 && !PLACEHOLDER.test(m[1] ?? ''),
  ),
];
