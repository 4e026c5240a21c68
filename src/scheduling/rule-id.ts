import type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';

/**
 * The stable id of a rule, `<kind>:handler:<name>` or `<kind>:key:<KEY>`:
 * the field name on Redis. Handler names and keys contain no `:`.
 */
export function ruleId(kind: RuleKind, target: RuleTarget): string {
  return 'handler' in target ? `${kind}:handler:${target.handler}` : `${kind}:key:${target.handlingKey}`;
}

/** The kind and target of a {@link ruleId}, or `undefined` if it is not one. */
export function parseRuleId(id: string): { kind: RuleKind; target: RuleTarget } | undefined {
  const [kind, scope, name, ...rest] = id.split(':');
  if ((kind !== 'pause' && kind !== 'block') || name === undefined || name === '' || rest.length > 0) {
    return undefined;
  }
  if (scope === 'handler') return { kind, target: { handler: name } };
  if (scope === 'key') return { kind, target: { handlingKey: name } };
  return undefined;
}

/**
 * The order `SchedulingRuleStore.listRules` promises: oldest `since` first,
 * rules set in the same millisecond by {@link ruleId}.
 */
export function compareRules(a: SchedulingRule, b: SchedulingRule): number {
  const bySince = a.since.getTime() - b.since.getTime();
  if (bySince !== 0) return bySince;
  const [idA, idB] = [ruleId(a.kind, a.target), ruleId(b.kind, b.target)];
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}
