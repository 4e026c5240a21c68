/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4),
 * for tests: prom-client 15 writes the format but has no parser. Any line it
 * does not understand throws, as does a sample of a family whose `# TYPE`
 * was not given first, a label written twice, or a value that is not a
 * number.
 */

/** One sample line. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric family: its `# TYPE`, `# HELP` and samples. */
export interface MetricFamily {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Parses an exposition; throws naming the line on anything malformed. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error('the exposition must end with a newline');
  for (const [i, line] of lines.entries()) {
    const fail = (why: string) => new Error(`line ${i + 1} ${JSON.stringify(line)}: ${why}`);
    if (line === '') continue;
    if (line.startsWith('#')) {
      const [hash, keyword, name, ...rest] = line.split(' ');
      if (hash !== '#' || (keyword !== 'HELP' && keyword !== 'TYPE')) continue; // A plain comment.
      if (name === undefined || !NAME.test(name)) throw fail('bad metric name');
      if (keyword === 'TYPE') {
        const type = rest.join(' ');
        if (!TYPES.has(type)) throw fail(`unknown type ${type}`);
        if (families.get(name)?.samples.length) throw fail('TYPE after its samples');
        const help = families.get(name)?.help ?? '';
        families.set(name, { name, type: type as MetricFamily['type'], help, samples: [] });
      } else {
        const family = families.get(name);
        const help = rest.join(' ');
        if (family === undefined) families.set(name, { name, type: 'untyped', help, samples: [] });
        else family.help = help;
      }
      continue;
    }
    const sample = parseSample(line, fail);
    const family = familyOf(families, sample.name);
    if (family === undefined) throw fail('sample of a family with no # TYPE');
    family.samples.push(sample);
  }
  return families;
}

function familyOf(families: Map<string, MetricFamily>, sample: string): MetricFamily | undefined {
  const own = families.get(sample);
  if (own !== undefined) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const family = families.get(sample.slice(0, -suffix.length));
    if (family?.type === 'histogram' || (family?.type === 'summary' && suffix !== '_bucket')) return family;
  }
  return undefined;
}

function parseSample(line: string, fail: (why: string) => Error): Sample {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  let name: string;
  let rest: string;
  const labels: Record<string, string> = {};
  if (brace >= 0 && (space < 0 || brace < space)) {
    name = line.slice(0, brace);
    let at = brace + 1;
    while (line[at] !== '}') {
      const eq = line.indexOf('=', at);
      const label = line.slice(at, eq);
      if (eq < 0 || !LABEL.test(label)) throw fail('bad label name');
      if (line[eq + 1] !== '"') throw fail('label value not quoted');
      let value = '';
      at = eq + 2;
      for (;;) {
        const char = line[at];
        if (char === undefined) throw fail('unterminated label value');
        at++;
        if (char === '"') break;
        if (char !== '\\') {
          value += char;
          continue;
        }
        const escaped = line[at++];
        if (escaped === 'n') value += '\n';
        else if (escaped === '\\' || escaped === '"') value += escaped;
        else throw fail('bad escape in a label value');
      }
      if (label in labels) throw fail(`label ${label} twice`);
      labels[label] = value;
      if (line[at] === ',') at++;
      else if (line[at] !== '}') throw fail('expected , or } after a label');
    }
    if (line[at + 1] !== ' ') throw fail('expected a space after the labels');
    rest = line.slice(at + 2);
  } else {
    if (space < 0) throw fail('no value');
    name = line.slice(0, space);
    rest = line.slice(space + 1);
  }
  if (!NAME.test(name)) throw fail('bad metric name');
  const [raw, timestamp, extra] = rest.split(' ');
  if (extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
    throw fail('bad timestamp');
  }
  return { name, labels, value: parseValue(raw ?? '', fail) };
}

function parseValue(raw: string, fail: (why: string) => Error): number {
  if (raw === '+Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  // Prometheus reads NaN in any case (Go's ParseFloat); prom-client writes `Nan`.
  if (/^nan$/i.test(raw)) return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw fail(`bad value ${raw}`);
  return Number(raw);
}

/**
 * The value of the one sample named `name` whose labels are exactly
 * `labels`; throws if there is none or several.
 */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string>,
): number {
  const all = [...families.values()].flatMap((f) => f.samples);
  const want = JSON.stringify(Object.entries(labels).sort());
  const found = all.filter(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want,
  );
  if (found.length !== 1) {
    throw new Error(
      `${found.length} samples ${name}${want}; samples of ${name}: ${JSON.stringify(all.filter((s) => s.name === name))}`,
    );
  }
  return (found[0] as Sample).value;
}
