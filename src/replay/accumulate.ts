/** How one field of a figure adds into a total: nested objects (tallies, costs) add up number by number. */
export type Merge = 'sum' | 'max' | 'any' | 'apart';

/** A rule for every field, optional ones included: a new field without one is a type error, not a total stuck at 0. */
export type MergeRules<T> = { readonly [K in keyof Required<T>]: Merge };

/** Adds `from` into `into` by `rules`; a field `into` lacks takes a copy of `from`'s, after the fields it has. */
export function addInto<T extends object>(into: T, from: T, rules: MergeRules<T>): T {
  for (const key of Object.keys(from) as (keyof T)[]) {
    const value = from[key];
    if (rules[key] === 'apart' || value === undefined) continue;
    into[key] = merged(into[key], value, rules[key]) as T[keyof T];
  }
  return into;
}

function merged(into: unknown, from: unknown, rule: Merge): unknown {
  if (into === undefined) return structuredClone(from);
  if (typeof from === 'number') return rule === 'max' ? Math.max(into as number, from) : (into as number) + from;
  if (typeof from === 'boolean') return (into as boolean) || from;
  const out = into as Record<string, unknown>;
  for (const [k, v] of Object.entries(from as object)) out[k] = merged(out[k], v, 'sum');
  return out;
}
