import type { SecretLintRuleCreator, SecretLintRuleContext, SecretLintSourceCode } from '@secretlint/types';

/**
 * Rules for credentials that secretlint's recommended preset does not cover, written as secretlint rules so they run
 * beside the preset's: GitLab and Stripe tokens, GCP service-account keys printed inline (the preset only reads a whole
 * `.json` file), private keys inside text escaped more than once (a key file's JSON inside a tool call's JSON
 * arguments: the preset's check of the body stops at the second backslash), Anthropic keys other than `api0N`, passwords
 * in URLs of any scheme (the preset reads only http, ftp and three databases, and only passwords of letters, digits, `-`
 * and `_` in http URLs), and AWS secret keys written beside their id without an assignment.
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

/** AWS access key ids: secretlint's id pattern (the preset's, with `enableIDScanRule`) and TruffleHog's `ABIA`/`ACCA`. */
const AWS_ACCESS_KEY_ID = /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g;
/** AWS's documented example credentials, which appear in docs and tests: never a live key. */
const AWS_EXAMPLES = new Set(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);
/** A 40-character run of the base64 alphabet with no such character on either side: the shape of a secret access key. */
const AWS_SECRET_CANDIDATE = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/])/dg;
/** TruffleHog's chunk: an id pairs with the candidates in the same 10 KiB. */
const AWS_PAIRING_REACH = 10 * 1024;

/** Shannon entropy in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/**
 * Whether a candidate can be a generated secret key. A git or content hash (lowercase hex) is the same length; a key
 * AWS generated holds upper case, lower case and digits (all three miss in about 1 of 900 random keys) at about 4.8
 * bits per character, where a long identifier (`getUserAccountSettingsFromDatabaseCache1`) stays near 4.
 */
function looksGenerated(candidate: string): boolean {
  return (
    !/^[0-9a-f]+$/.test(candidate) &&
    /[A-Z]/.test(candidate) &&
    /[a-z]/.test(candidate) &&
    /[0-9]/.test(candidate) &&
    entropy(candidate) >= 4.2 &&
    !AWS_EXAMPLES.has(candidate)
  );
}

/**
 * An AWS secret access key written without an assignment ("key AKIA… with secret …"): secretlint's and gitleaks' rules
 * want `aws_secret_access_key =`. As TruffleHog does, every 40-character base64 candidate is paired with an access
 * key id found near it, here within its chunk's reach on either side; the candidate must look generated.
 */
const awsPairedSecretRule: SecretLintRuleCreator = (() => {
  const messages = { AWS_PAIRED_SECRET: { en: (props?: { TOKEN?: string }) => `found AWS secret access key: ${props?.TOKEN ?? ''}` } };
  return {
    messages,
    meta: { id: 'tcompact/aws-paired-secret', type: 'scanner', recommended: true, supportedContentTypes: ['text'] },
    create(context: SecretLintRuleContext) {
      const t = context.createTranslator(messages);
      return {
        file(source: SecretLintSourceCode) {
          const text = source.content;
          const ids: number[] = [];
          for (const m of text.matchAll(AWS_ACCESS_KEY_ID)) if (!AWS_EXAMPLES.has(m[0])) ids.push(m.index);
          if (ids.length === 0) return;
          for (const m of text.matchAll(AWS_SECRET_CANDIDATE)) {
            if (!ids.some((at) => Math.abs(at - m.index) <= AWS_PAIRING_REACH) || !looksGenerated(m[0])) continue;
            context.report({ message: t('AWS_PAIRED_SECRET', { TOKEN: m[0] }), range: [m.index, m.index + m[0].length] });
          }
        },
      };
    },
  };
})();

/** Placeholders in URLs that are not passwords: `${PASS}`, `<password>`, `****`, `%s`, `...`. */
const PLACEHOLDER = /^(?:[*x.]+|.*[${}<>%].*|pass(?:word)?|secret|changeme|token)$/i;

export const EXTRA_RULES: SecretLintRuleCreator[] = [
  // The preset's AWS rule finds access key ids only with `enableIDScanRule`, which also scans for account ids (not
  // credentials) at four times the cost of the id alone: this is its id pattern, less AWS's documented example id.
  patternRule(
    'tcompact/aws-access-key-id',
    'AWS_ACCESS_KEY_ID',
    'AWS access key id',
    new RegExp(AWS_ACCESS_KEY_ID.source, 'dg'),
    0,
    (m) => !AWS_EXAMPLES.has(m[0]),
  ),
  awsPairedSecretRule,
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
