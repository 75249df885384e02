import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that a self-time summary needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  /** `name (file:line)`, the file relative to the repository or package. */
  fn: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Time in samples that were not idle (V8's `(idle)` node), in ms. */
  busyMs: number;
  top: SelfTime[];
}

function where(url: string): string {
  if (url === '') return '';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('/node_modules/');
  if (nm !== -1) return clean.slice(nm + '/node_modules/'.length);
  const src = clean.search(/\/(dist\/)?(src|workers|bench)\//);
  return src === -1 ? clean : clean.slice(src + 1);
}

/** Self time per function (summed over every node of the same function), largest first. */
export function summarizeProfile(path: string, topN = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + (deltas[i] ?? 0));
  const byFn = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === '(idle)') idleUs += us;
    const loc = where(frame.url);
    const key = `${frame.functionName || '(anonymous)'}${loc ? ` (${loc}:${frame.lineNumber + 1})` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
  }
  const totalUs = profile.endTime - profile.startTime;
  const top = [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([fn, us]) => ({ fn, ms: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }));
  return { totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, top };
}
