import type { EventRegistry } from '../events/event-registry.js';
import { type HandlerTable, prefixesOf } from '../handlers/handler-table.js';
import { RuleTargetError } from './errors/rule-target.error.js';
import type { RuleTarget } from './scheduling-rule.js';

/**
 * The handlers and handling keys rules may name: every handler some
 * registered event runs, and every registered key and key above one.
 */
export class KnownTargets {
  private readonly handlers: ReadonlySet<string>;
  private readonly keys: ReadonlySet<string>;

  constructor(registry: EventRegistry, table: HandlerTable) {
    const registered = registry.keys();
    this.keys = new Set(registered.flatMap(prefixesOf));
    this.handlers = new Set(registered.flatMap((key) => table.plan(key).all.map((h) => h.name)));
  }

  /** Returns `target` reduced to its one field, or throws {@link RuleTargetError}. */
  check(target: RuleTarget): RuleTarget {
    const value = target as Partial<Record<'handler' | 'handlingKey', unknown>> | null | undefined;
    const handler = value?.handler;
    const handlingKey = value?.handlingKey;
    if (typeof handler === 'string' && handlingKey === undefined) return { handler: this.handler(handler) };
    if (typeof handlingKey === 'string' && handler === undefined) {
      if (!this.keys.has(handlingKey)) {
        throw new RuleTargetError(
          `no registered event has the handling key ${JSON.stringify(handlingKey)} or one below it (known: ${list(this.keys)}); name one of those keys`,
        );
      }
      return { handlingKey };
    }
    throw new RuleTargetError(
      `a rule target is { handler: 'name' } or { handlingKey: 'KEY' }, got ${JSON.stringify(target) ?? String(target)}`,
    );
  }

  /** Returns `name` if some event runs that handler, or throws {@link RuleTargetError}. */
  handler(name: string): string {
    if (!this.handlers.has(name)) {
      throw new RuleTargetError(
        `no handler named ${JSON.stringify(name)} in EVENT_HANDLERS (known: ${list(this.handlers)}); name one of those handlers`,
      );
    }
    return name;
  }
}

function list(names: ReadonlySet<string>): string {
  return [...names].sort().join(', ') || 'none';
}
