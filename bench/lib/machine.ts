import { cpus, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  /**
   * 1-minute load average when the benchmark finished: other work on the machine (on these shared 2-core machines,
   * other jobs) slows the figures down, and this says how much was going on.
   */
  loadAverage1m: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}`;
}

export function describeLoad(m: MachineInfo): string {
  return m.loadAverage1m === undefined ? '' : `, load average ${m.loadAverage1m} at the end`;
}
