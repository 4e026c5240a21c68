import type { Command } from 'commander';
import type { EventBus } from '../bus/event-bus.js';
import type { RuleTarget } from '../scheduling/scheduling-rule.js';
import { printJson, printLine } from './output.js';
import { withSharedBus } from './with-bus.js';

type Verb = 'pause' | 'resume' | 'block' | 'unblock';

const WHAT: Readonly<Record<Verb, string>> = {
  pause: 'pause a handler or handling key: its work is parked until resumed',
  resume: 'lift a pause: parked work is delivered, oldest first',
  block: 'block a handler or handling key: its work is dropped (an emergency stop)',
  unblock: 'lift a block; work dropped meanwhile stays dropped',
};

const DONE: Readonly<Record<Verb, [string, string]>> = {
  pause: ['paused', 'was paused already'],
  resume: ['resumed', 'was not paused'],
  block: ['blocked', 'was blocked already'],
  unblock: ['unblocked', 'was not blocked'],
};

/** Adds `commitbus pause|resume|block|unblock <handler-or-key>` over `bus.rules`. */
export function addRuleCommands(program: Command): void {
  for (const verb of Object.keys(WHAT) as Verb[]) {
    program
      .command(verb)
      .description(WHAT[verb])
      .argument('<handler-or-key>', "a handler's name, or a handling key (it and the keys below it)")
      .option('--key', 'read the argument as a handling key even if a handler has that name')
      .option('--json', 'print { target, changed } as one JSON document')
      .action(async (name: string, flags: { key?: boolean }, command: Command) =>
        withSharedBus(command, async ({ loaded, json }) => {
          const target = targetOf(loaded.bus, name, flags.key === true);
          const changed = await loaded.bus.rules[verb](target);
          if (json) printJson({ target, changed });
          else printLine(`${describe(target)} ${DONE[verb][changed ? 0 : 1]}`);
        }),
      );
  }
}

/** A handler if the bus has one of that name, else a handling key (the bus refuses one it does not know). */
function targetOf(bus: EventBus, name: string, key: boolean): RuleTarget {
  if (!key && bus.handlers.all().some((h) => h.name === name)) return { handler: name };
  return { handlingKey: name };
}

function describe(target: RuleTarget): string {
  return 'handler' in target ? `handler ${target.handler}` : `handling key ${target.handlingKey}`;
}
