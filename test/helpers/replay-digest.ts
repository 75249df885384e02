import { createHash } from 'node:crypto';

/** The fidelity flags: the source's own compactions replayed against the record (see docs/cli.md, `simulate`). */
export const FIDELITY_FLAGS = ['--policy', 'source', '--window', '200000', '--base-prompt', 'recorded', '--token-ratio', 'recorded'] as const;

interface Bill {
  calls: number;
  billedInput: number;
  cachedInput: number;
  cacheWrites: number;
  cost: { withCache: number };
}

interface Report {
  fidelity?: unknown;
  policies: (Bill & { name: string })[];
  perTranscript: { id: string; file: string; policies: Record<string, Bill>; fidelity?: unknown }[];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * What must not move when the replay's code is restructured, from one `simulate.json` (written with FIDELITY_FLAGS):
 * each policy's bill, each transcript's `source` bill and fidelity, and a digest of each transcript's whole entry and
 * of the whole report, so a change anywhere shows. `root`, the folder the inputs were read from, is cut from every
 * path (and `inputs`, the command line's paths, is left out): the digest is the same wherever the corpus sits.
 */
export function replayDigest(simulateJson: string, root: string): unknown {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const { inputs: _inputs, ...rest } = JSON.parse(simulateJson.split(JSON.stringify(prefix).slice(1, -1)).join('')) as Report & { inputs: unknown };
  const report = rest as Report;
  return {
    report: sha(JSON.stringify(report)),
    fidelity: report.fidelity ?? null,
    policies: Object.fromEntries(report.policies.map((p) => [p.name, bill(p)])),
    perTranscript: report.perTranscript.map((t) => ({
      file: t.file,
      id: t.id,
      source: t.policies.source ? bill(t.policies.source) : null,
      fidelity: t.fidelity ?? null,
      entry: sha(JSON.stringify(t)),
    })),
  };
}

const bill = (b: Bill) => ({
  calls: b.calls,
  billedInput: b.billedInput,
  cachedInput: b.cachedInput,
  cacheWrites: b.cacheWrites,
  costWithCache: b.cost.withCache,
});
