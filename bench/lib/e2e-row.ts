import { formatNumber, spreadText } from './figures.js';
import type { Cell } from './results.js';

/** One variant's figures on one archive: medians over its rounds, their min-max, and each round's own figures. */
export interface E2eRow {
  variant: string;
  /** Null when the variant could not run (see `note`). */
  wallMs: number | null;
  /** Input MB / wall seconds (process start-up included). */
  mbPerSec: number | null;
  /** For baselines (b) and (c): input MB / seconds spent inside the tokenizer only; the figure the pipeline is compared with. */
  tokenizerOnlyMbPerSec?: number;
  peakRssMB: number | null;
  /** CPU ms (user + sys, every thread) per input MB, median; null without GNU time. */
  cpuMsPerMB?: number | null;
  /** How many rounds the variant ran in; the ranges are their lowest and highest figures. */
  rounds?: number;
  wallMsRange?: [number, number];
  cpuMsPerMBRange?: [number, number];
  tokenizerOnlyMbPerSecRange?: [number, number];
  /** Per round, in round order (round i of every row of an archive ran in the same round): what the ratios pair. */
  byRound?: { wallMs: number[]; cpuMs: (number | null)[]; countMs?: number[] };
  tokens?: number;
  tokensSaved?: number;
  /** Bytes of the side store a pipeline run wrote (refs.jsonl). */
  refsBytes?: number;
  note?: string;
}

/** A median and its min-max as one table cell ("7.31 (7.10–7.52)"), scaled by `scale`; the median alone after one round. */
export function rangeCell(medianValue: number | null | undefined, range: readonly [number, number] | undefined, rounds: number | undefined, scale = 1): Cell {
  if (medianValue === null || medianValue === undefined) return null;
  if (range === undefined || rounds === undefined || rounds < 2) return medianValue * scale;
  return spreadText({ median: medianValue * scale, min: range[0] * scale, max: range[1] * scale, runs: rounds });
}

/** {@link rangeCell} as text, for a figure inside a cell. */
export function rangeText(medianValue: number, range: readonly [number, number] | undefined, rounds: number | undefined): string {
  const c = rangeCell(medianValue, range, rounds);
  return typeof c === 'number' ? formatNumber(c) : String(c);
}
