/** How an axis' ticks and the tooltips show values: plain numbers, compact (12.3k), shares (0.42 -> 42%) or dollars. */
type AxisFormat = 'number' | 'compact' | 'percent' | 'usd';

/** A chart of the page: a Chart.js configuration (plain JSON) drawn on a canvas by the page's script. */
export interface ChartSpec {
  id: string;
  title: string;
  /** One sentence under the chart saying how to read it. */
  note?: string;
  /** Takes the whole width of the section. @default false */
  wide?: boolean;
  formats: { x?: AxisFormat; y?: AxisFormat };
  config: { type: string; data: unknown; options: Record<string, unknown> };
}

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export const colour = (i: number): string => PALETTE[i % PALETTE.length];

interface Series {
  label: string;
  data: readonly number[];
  colour?: string;
  /** Series with the same stack name sit on one bar. */
  stack?: string;
}

const axisTitle = (text: string | undefined) => (text === undefined ? { display: false } : { display: true, text });

/** Bars: one group per label, one bar per series (`stacked` piles the series of a stack). */
export function barChart(
  id: string,
  title: string,
  labels: readonly string[],
  series: readonly Series[],
  options: { stacked?: boolean; horizontal?: boolean; x?: string; y?: string; value?: AxisFormat; note?: string } = {},
): ChartSpec {
  const horizontal = options.horizontal === true;
  const value = options.value ?? 'compact';
  return {
    id,
    title,
    note: options.note,
    formats: horizontal ? { x: value } : { y: value },
    config: {
      type: 'bar',
      data: {
        labels,
        datasets: series.map((s, i) => ({ label: s.label, data: s.data, backgroundColor: s.colour ?? colour(i), stack: s.stack ?? s.label })),
      },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        plugins: { legend: { display: series.length > 1 } },
        scales: {
          x: { stacked: options.stacked === true, title: axisTitle(options.x) },
          y: { stacked: options.stacked === true, title: axisTitle(options.y), beginAtZero: true },
        },
      },
    },
  };
}

export interface PointSeries {
  label: string;
  points: readonly { x: number; y: number }[];
  colour?: string;
  radius?: number;
  /** Draw a line through the points (in x order) instead of dots. */
  line?: boolean;
  /** Left out of the legend (e.g. the many small points behind a total). @default false */
  legendHidden?: boolean;
}

/** Points or lines on two linear axes. */
export function xyChart(
  id: string,
  title: string,
  series: readonly PointSeries[],
  options: { x?: string; y?: string; xFormat?: AxisFormat; yFormat?: AxisFormat; note?: string; yFromZero?: boolean; wide?: boolean } = {},
): ChartSpec {
  const lines = series.some((s) => s.line === true);
  return {
    id,
    title,
    note: options.note,
    wide: options.wide,
    formats: { x: options.xFormat ?? 'number', y: options.yFormat ?? 'number' },
    config: {
      type: 'scatter',
      data: {
        datasets: series.map((s, i) => {
          const c = s.colour ?? colour(i);
          return {
            label: s.label,
            data: s.points,
            backgroundColor: c,
            borderColor: c,
            pointRadius: s.line ? 0 : (s.radius ?? 4),
            showLine: s.line === true,
            borderWidth: s.line ? 1.5 : 1,
            legendHidden: s.legendHidden === true,
          };
        }),
      },
      options: {
        plugins: { legend: { display: series.length > 1 } },
        scales: {
          x: { type: 'linear', title: axisTitle(options.x) },
          y: { type: 'linear', title: axisTitle(options.y), beginAtZero: options.yFromZero ?? lines },
        },
      },
    },
  };
}
