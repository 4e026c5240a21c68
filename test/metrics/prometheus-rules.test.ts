/**
 * The alert rules and the Grafana dashboard shipped in the package (`ops/`),
 * checked with Debian's Prometheus tools: `promtool check rules` accepts the
 * rules, and `promtool test rules` runs their unit tests
 * (`test/fixtures/prometheus/commitbus-alerts.test.yml`), in which every
 * alert fires once its condition held for its `for:` and stays quiet before.
 * The dashboard is Grafana JSON with the variables its queries use.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROMTOOL, requirePrometheus } from '../helpers/prometheus-server.js';

const RULES = 'ops/prometheus/commitbus-alerts.yml';
const RULE_TESTS = 'test/fixtures/prometheus/commitbus-alerts.test.yml';
const DASHBOARD = 'ops/grafana/commitbus.json';

const run = promisify(execFile);

/** Runs promtool; resolves with its exit code and output (it exits 1 on a failed check). */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  requirePrometheus();
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { timeout: 20_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** The alert names of a rules file. */
const alertNames = (text: string) => [...text.matchAll(/^\s*- alert: (\S+)$/gm)].map((m) => m[1]);

describe('the shipped Prometheus alert rules', () => {
  it('pass promtool check rules', async () => {
    const { code, output } = await promtool('check', 'rules', RULES);
    expect(output).toContain('SUCCESS: 10 rules found');
    expect(code).toBe(0);
  });

  it('pass their promtool unit tests, in which every alert fires', async () => {
    const { code, output } = await promtool('test', 'rules', RULE_TESTS);
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
    // Every alert of the rules has a case where it is expected to fire (exp_labels under its alertname).
    const tests = readFileSync(RULE_TESTS, 'utf8');
    const firing = new Set(
      [...tests.matchAll(/alertname: (\S+)\n\s+exp_alerts:\n\s+- exp_labels:/g)].map((m) => m[1]),
    );
    const alerts = alertNames(readFileSync(RULES, 'utf8'));
    expect(alerts.length).toBe(10);
    expect(alerts.filter((name) => !firing.has(name))).toEqual([]);
  });

  it('say in each alert what it means and which command to look with', () => {
    const text = readFileSync(RULES, 'utf8');
    const blocks = text.split(/^\s*- alert: /m).slice(1);
    for (const block of blocks) {
      expect(block).toMatch(/\n\s+summary: ".+"/);
      expect(block).toMatch(/\n\s+description: ".+"/);
      expect(block).toMatch(/\n\s+runbook: "commitbus [a-z-]+.*"/);
    }
    expect(blocks.length).toBe(10);
  });
});

describe('the shipped Grafana dashboard', () => {
  it('is Grafana JSON whose panels query commitbus metrics through the $datasource, $job and $instance variables', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      schemaVersion: number;
      uid: string;
      templating: { list: { name: string; type: string }[] };
      panels: { type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
    };
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.uid).toBe('commitbus');
    expect(dashboard.templating.list.map((v) => [v.name, v.type])).toEqual([
      ['datasource', 'datasource'],
      ['job', 'query'],
      ['instance', 'query'],
    ]);
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.map((p) => p.title)).toEqual(
      expect.arrayContaining([
        'Throughput',
        'Failures',
        'Retries',
        'Dead letters by handler',
        'Backlog',
        'Backlog age',
        'Workers',
        'Outbox relay lag',
        'Event store queue and writer',
      ]),
    );
    for (const panel of panels) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template.
      expect(panel.datasource?.uid).toBe('${datasource}');
      for (const { expr } of panel.targets ?? []) {
        expect(expr).toMatch(/commitbus_/);
        expect(expr).toContain('job=~"$job", instance=~"$instance"');
      }
    }
  });
});
