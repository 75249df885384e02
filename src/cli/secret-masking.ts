import { SecretMasker } from '../secrets/mask.js';
import type { CliIO } from './command.js';

// Apart from the flag table (secret-flags.ts): the masker loads the secret rules, which a command's help never needs.

/** The masker of one command: the identity with --show-secrets. */
export function maskerFromFlags(values: { 'show-secrets': boolean }): SecretMasker {
  return new SecretMasker(values['show-secrets']);
}

/** The line a command prints after masking, or nothing when nothing was masked. */
export function maskedLine(masker: SecretMasker): string {
  if (masker.total === 0) return '';
  const kinds = Object.entries(masker.counts)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return `secrets masked: ${masker.total} (${kinds}); --show-secrets shows them\n`;
}

/**
 * The command's io with every text written to stdout and stderr masked: progress lines, error messages, what a
 * command prints. A secret split across two writes is not seen; tcompact writes whole lines.
 */
export function maskedIO<T extends CliIO>(io: T): T {
  const masker = new SecretMasker();
  const wrap = <S extends NodeJS.WritableStream>(stream: S): S =>
    new Proxy(stream, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (key !== 'write' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (chunk: unknown, ...rest: unknown[]) =>
          (value as (...a: unknown[]) => boolean).call(target, typeof chunk === 'string' ? masker.text(chunk) : chunk, ...rest);
      },
    });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr) };
}
