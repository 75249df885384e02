import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../src/secrets/detector.js';
import { SecretMasker } from '../../src/secrets/mask.js';
import { plantedSecrets } from '../helpers/planted-secrets.js';

const masked = (text: string): string => new SecretMasker().text(text);

describe('findSecrets', () => {
  it.each(plantedSecrets().map((s) => [s.kind, s] as const))('finds a planted %s in its line, by kind', (kind, secret) => {
    const found = findSecrets(secret.line);
    const holding = found.find((m) => secret.line.slice(m.start, m.end).includes(secret.value));
    expect(holding?.kind === kind || holding?.kind === 'url-password', JSON.stringify(found)).toBe(true);
    expect(masked(secret.line)).not.toContain(secret.value);
  });

  it('finds the self-describing kinds alone, without their context', () => {
    for (const s of plantedSecrets().filter((p) => p.bare)) expect(masked(`x ${s.value} y`), s.kind).toBe(`x [secret: ${s.kind}] y`);
  });

  it('finds what secretlint core finds with the recommended preset on each line', async () => {
    for (const s of plantedSecrets()) {
      const result = await lintSource({
        source: { content: s.line, filePath: 'transcript.txt', contentType: 'text' },
        options: { config: { rules: [{ id: recommended.meta.id, rule: recommended, options: {} }] } },
      });
      const ours = findSecrets(s.line);
      for (const m of result.messages) {
        expect(
          ours.some((o) => o.start < m.range[1] && m.range[0] < o.end),
          `${s.kind}: ${m.messageId}`,
        ).toBe(true);
      }
    }
  });

  describe('an AWS secret key written beside its id, without an assignment', () => {
    const [id] = plantedSecrets().filter((p) => p.kind === 'aws-access-key-id');
    const prose = plantedSecrets().find((p) => p.kind === 'aws-secret-access-key' && !p.line.includes('='))!;

    it('is masked, with its id', () => {
      expect(masked(prose.line)).toMatch(/^Use the deploy key \[secret: aws-access-key-id\] with secret \[secret: aws-secret-access-key\] for/);
    });

    it('is found with the id anywhere in the same 10 KiB, and not beyond', () => {
      const near = `${id.value} ${'x '.repeat(5000)}secret: ${prose.value}.`;
      expect(masked(near)).not.toContain(prose.value);
      const far = `${id.value} ${'x '.repeat(5200)}secret: ${prose.value}.`;
      expect(masked(far)).toContain(prose.value);
    });

    it('is not found without an id, nor beside the documented example id', () => {
      expect(findSecrets(`secret: ${prose.value}`)).toEqual([]);
      expect(findSecrets(`AKIAIOSFODNN7EXAMPLE secret: ${prose.value}`)).toEqual([]);
    });

    it('leaves hashes, identifiers, paths and longer base64 beside an id alone', () => {
      for (const candidate of [
        'da39a3ee5e6b4b0d3255bfef95601890afd80709', // a git object id
        'getUserAccountSettingsFromDatabaseCache1',
        'home/runner/work/project/src/components1',
        'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', // AWS's documented example secret
        `${prose.value}AAAA`, // a longer run of base64 (an image, a blob) holds no 40-character key
      ]) {
        const found = findSecrets(`${id.value} ${candidate}`).map((m) => m.kind);
        expect(found, candidate).toEqual(['aws-access-key-id']);
      }
    });
  });

  it('is not switched off by a secretlint-disable comment in the text', () => {
    const s = plantedSecrets().find((p) => p.kind === 'github-token')!;
    expect(masked(`// secretlint-disable\n${s.line}`)).not.toContain(s.value);
  });

  it('leaves placeholders in URLs and ordinary text alone', () => {
    for (const text of [
      'postgres://app:${DB_PASSWORD}@db:5432/app',
      'redis://:password@localhost:6379',
      'https://user:****@example.com/x',
      'amqp://guest:<password>@rabbit:5672',
      'see https://github.com/secretlint/secretlint and run npm test',
      'The sk-learn package and the AKIA prefix are documented.',
    ]) {
      expect(findSecrets(text), text).toEqual([]);
    }
  });
});

describe('SecretMasker', () => {
  it('masks strings and keys of plain objects, arrays and maps, counts by kind, and is the identity with show', () => {
    const [aws, gh] = [plantedSecrets()[0], plantedSecrets().find((p) => p.kind === 'github-token')!];
    const value = { [gh.value]: [aws.line, 3, null], m: new Map([['k', gh.value]]) };
    const masker = new SecretMasker();
    expect(masker.value(value)).toEqual({
      '[secret: github-token]': ['export AWS_ACCESS_KEY_ID=[secret: aws-access-key-id]', 3, null],
      m: new Map([['k', '[secret: github-token]']]),
    });
    expect(masker.counts).toEqual({ 'github-token': 2, 'aws-access-key-id': 1 });
    expect(new SecretMasker(true).value(value)).toBe(value);
  });
});
