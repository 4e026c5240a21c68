/** Types of the dev dependency `parse-prometheus-text-format` (it ships none). */
declare module 'parse-prometheus-text-format' {
  /** One sample of a counter or gauge, or one histogram/summary series. */
  export interface ParsedMetric {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  /** One metric family. */
  export interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly ParsedMetric[];
  }
  /** Parses the Prometheus text exposition format. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
