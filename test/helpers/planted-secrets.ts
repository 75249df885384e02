/**
 * Made-up credentials of every kind the secret scan must find, each built from parts at run time so no file of the
 * repository holds a string that looks like a live credential. Each follows its provider's published shape (prefix,
 * alphabet, length) as secretlint's rules document it; none was ever issued.
 */
function filler(seed: string, length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let out = '';
  let x = 0;
  for (const ch of seed) x = (x * 31 + ch.charCodeAt(0)) >>> 0;
  while (out.length < length) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += alphabet[(x >>> 16) % alphabet.length];
  }
  return out;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A PEM block of `label` whose body looks like DER (starts `MII`), 64-column lines. */
function pem(label: string, seed: string, newline = '\n'): string {
  const body = `MII${filler(seed, 1213, B64)}`;
  const lines = body.match(/.{1,64}/g) ?? [];
  return [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`].join(newline);
}

export interface PlantedSecret {
  kind: string;
  /** The secret itself: the string no shared output may hold. */
  value: string;
  /** A line of text carrying it as an agent would see it. */
  line: string;
  /**
   * Whether the value alone says what it is (a prefix such as `ghp_` or `AKIA`). A 40-character AWS secret key, a
   * password or a line of a key's body is a secret only by its context (`aws_secret_access_key =`, `postgres://u:`,
   * `-----BEGIN`), and no scanner can tell it from any other string without it.
   */
  bare: boolean;
}

export function plantedSecrets(seed = 'tc'): PlantedSecret[] {
  const f = (tag: string, n: number, alphabet?: string): string => filler(seed + tag, n, alphabet);
  const awsId = ['AK', 'IA', f('awsid', 16, UPPER)].join('');
  const awsSecret = f('awssecret', 40, B64.replace('+', 'x'));
  const awsProseId = ['AK', 'IA', f('awsid2', 16, UPPER)].join('');
  const awsProseSecret = f('awssecret2', 40, B64);
  const gcpKeyId = f('gcpid', 40, '0123456789abcdef');
  const gcpKey = pem('PRIVATE KEY', seed + 'gcp', '\\n');
  const github = ['gh', 'p_', f('gh', 36)].join('');
  const gitlab = ['gl', 'pat-', f('gl', 20)].join('');
  const slack = ['xo', 'xb-', f('sl1', 12, '0123456789'), '-', f('sl2', 13, '0123456789'), '-', f('sl3', 24)].join('');
  const npm = ['np', 'm_', f('npm', 36)].join('');
  const stripe = ['sk', '_li', 've_', f('stripe', 24)].join('');
  const openai = ['sk-', 'proj-', f('oa1', 74), 'T3Blbk', 'FJ', f('oa2', 74)].join('');
  const anthropic = ['sk-', 'ant-', 'api03-', f('ant', 93, B64.replace('+/', '-_')), 'AA'].join('');
  const rsa = pem('RSA PRIVATE KEY', seed + 'rsa');
  const dbPassword = f('dbpw', 14);
  const redisPassword = `${f('rpw', 10)}!x`;
  return [
    { kind: 'aws-access-key-id', value: awsId, line: `export AWS_ACCESS_KEY_ID=${awsId}`, bare: true },
    { kind: 'aws-secret-access-key', value: awsSecret, line: `aws_secret_access_key = ${awsSecret}`, bare: false },
    {
      kind: 'aws-secret-access-key',
      value: awsProseSecret,
      line: `Use the deploy key ${awsProseId} with secret ${awsProseSecret} for the staging bucket.`,
      bare: false,
    },
    {
      kind: 'gcp-service-account-key',
      value: gcpKeyId,
      line: `{"type": "service_account", "project_id": "demo", "private_key_id": "${gcpKeyId}", "private_key": "${gcpKey}\\n"}`,
      bare: false,
    },
    { kind: 'private-key', value: gcpKey.split('\\n')[3] ?? '', line: `gcp key body ${gcpKey}`, bare: false },
    { kind: 'github-token', value: github, line: `curl -H "Authorization: token ${github}" https://api.github.com/user`, bare: true },
    { kind: 'gitlab-token', value: gitlab, line: `git clone https://oauth2:${gitlab}@gitlab.com/acme/app.git`, bare: true },
    { kind: 'slack-token', value: slack, line: `SLACK_BOT_TOKEN=${slack}`, bare: true },
    { kind: 'npm-token', value: npm, line: `//registry.npmjs.org/:_authToken=${npm}`, bare: true },
    { kind: 'stripe-key', value: stripe, line: `STRIPE_SECRET_KEY=${stripe}`, bare: true },
    { kind: 'openai-key', value: openai, line: `OPENAI_API_KEY=${openai}`, bare: true },
    { kind: 'anthropic-key', value: anthropic, line: `ANTHROPIC_API_KEY=${anthropic}`, bare: true },
    { kind: 'private-key', value: (rsa.split('\n')[5] ?? '').slice(0, 40), line: rsa, bare: false },
    { kind: 'connection-string', value: dbPassword, line: `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app`, bare: false },
    { kind: 'url-password', value: redisPassword, line: `REDIS_URL=redis://default:${redisPassword}@cache.internal:6379`, bare: false },
  ];
}
