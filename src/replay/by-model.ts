import type { ModelPriceUse, ModelPricesReport } from './billing/cache-choice.js';
import type { Cost } from './billing/prices.js';
import type { PolicyTotals, RecordedReport } from './simulation-report.js';

/** One model's share of a run or of the record: its calls and their cost at its prices. */
export interface ModelShare {
  calls: number;
  cost: Cost;
}

/** A row of the "By model" tables: a policy's replay or the recorded usage, by model, with its whole cost. */
export interface ByModelRow {
  label: string;
  byModel: Readonly<Record<string, ModelShare>>;
  /** Its cost with caching, compaction calls included (which no model's share holds). */
  total: number;
  /** What its compaction calls cost, billed apart from the models' shares. @default 0 */
  compactionCalls: number;
}

/** The policies' rows, then the recorded usage's and the embedded subagent calls' (when recorded). */
export function byModelRows(
  policies: readonly (Pick<PolicyTotals, 'name' | 'cost' | 'compactionCalls'> & Partial<Pick<PolicyTotals, 'byModel'>>)[],
  recorded?: Pick<RecordedReport, 'usage' | 'embedded'>,
): ByModelRow[] {
  const rows: ByModelRow[] = policies.map((p) => ({
    label: p.name,
    byModel: p.byModel ?? {},
    total: p.cost.withCache,
    compactionCalls: p.compactionCalls?.cost ?? 0,
  }));
  if (recorded) rows.push({ label: 'recorded', byModel: recorded.usage.byModel, total: recorded.usage.cost.withCache, compactionCalls: 0 });
  const embedded = recorded?.embedded?.usage;
  if (embedded && embedded.calls > 0)
    rows.push({ label: 'embedded subagent calls', byModel: embedded.byModel, total: embedded.cost.withCache, compactionCalls: 0 });
  return rows;
}

/** Where a model's rates came from, in a few words: `table (claude-opus-4-6)`, `file (my-model)`, `defaults`, and the flags that won. */
export function priceSource(use: ModelPriceUse): string {
  const base = use.listed ? `${use.listed.from} (${use.listed.name})` : 'defaults';
  return use.flags ? `${base}, ${use.flags.join(' ')}` : base;
}

/** The models of a report, in the order they were first billed (none before model prices were reported). */
export function billedModelNames(modelPrices: ModelPricesReport | undefined): string[] {
  return Object.keys(modelPrices ?? {});
}
