import { prefixesOf } from '../handlers/handler-table.js';
import type { RuleKind, RuleVerdict, SchedulingRule } from './scheduling-rule.js';

/**
 * The rules in force at one moment, compiled for the hot path: with no rules
 * a verdict is one size check, otherwise one or two Map lookups. `block` wins
 * over `pause` when both match.
 */
export class RuleSnapshot {
  /** No rules: everything runs. */
  static readonly EMPTY = new RuleSnapshot([]);

  private readonly byHandler = new Map<string, RuleKind>();
  private readonly byKey = new Map<string, RuleKind>();
  // Verdict of the key rules for each handling key seen, prefixes walked once.
  private readonly forEventKey = new Map<string, RuleVerdict>();

  constructor(readonly rules: readonly SchedulingRule[]) {
    for (const { kind, target } of rules) {
      const [map, name] =
        'handler' in target ? [this.byHandler, target.handler] : [this.byKey, target.handlingKey];
      map.set(name, strongest(map.get(name) ?? 'run', kind) as RuleKind);
    }
  }

  /** Whether there are no rules at all. */
  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** What to do with a run of `handler` for an event with key `handlingKey`. */
  verdict(handler: string, handlingKey: string): RuleVerdict {
    if (this.rules.length === 0) return 'run';
    return strongest(this.byHandler.get(handler) ?? 'run', this.keyVerdict(handlingKey));
  }

  /** What the rules on `handler` itself say, whatever the event. */
  handlerVerdict(handler: string): RuleVerdict {
    return this.byHandler.get(handler) ?? 'run';
  }

  private keyVerdict(handlingKey: string): RuleVerdict {
    if (this.byKey.size === 0) return 'run';
    let verdict = this.forEventKey.get(handlingKey);
    if (verdict === undefined) {
      verdict = prefixesOf(handlingKey).reduce<RuleVerdict>(
        (v, prefix) => strongest(v, this.byKey.get(prefix) ?? 'run'),
        'run',
      );
      this.forEventKey.set(handlingKey, verdict);
    }
    return verdict;
  }
}

const STRENGTH: Readonly<Record<RuleVerdict, number>> = { run: 0, pause: 1, block: 2 };

function strongest(a: RuleVerdict, b: RuleVerdict): RuleVerdict {
  return STRENGTH[a] >= STRENGTH[b] ? a : b;
}
