import type { Command } from 'commander';
import type { BusStatus } from '../bus/bus-status.js';
import type { EventBus } from '../bus/event-bus.js';
import type { RuleTarget } from '../scheduling/scheduling-rule.js';
import { cliOrigin } from './cli-origin.js';
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
      .option(
        '--dry-run',
        'print what it would hold back or drop (a handler: its jobs now), and change nothing',
      )
      .option(
        '--json',
        'print { target, changed } (with --dry-run { target, wouldChange, jobs }) as one JSON document',
      )
      .action(async (name: string, flags: { key?: boolean; dryRun?: boolean }, command: Command) =>
        withSharedBus(command, async ({ loaded, json }) => {
          const target = targetOf(loaded.bus, name, flags.key === true);
          if (flags.dryRun === true) return dryRun(loaded.bus, verb, target, json);
          const changed = await loaded.bus.rules[verb](target, cliOrigin());
          if (json) printJson({ target, changed });
          else printLine(`${describe(target)} ${DONE[verb][changed ? 0 : 1]}`);
        }),
      );
  }
}

/**
 * Prints what `verb` would do to `target`, changing nothing: whether it
 * would change a rule, and for a handler the jobs it has now (waiting,
 * running, retrying) that a pause would hold back or a block drop.
 */
async function dryRun(bus: EventBus, verb: Verb, target: RuleTarget, json: boolean): Promise<void> {
  const active = await bus.rules.list();
  const kind = verb === 'pause' || verb === 'resume' ? 'pause' : 'block';
  const present = active.some((rule) => rule.kind === kind && sameTarget(rule.target, target));
  const wouldChange = verb === 'pause' || verb === 'block' ? !present : present;
  const jobs = 'handler' in target ? jobsOf(await bus.status(), target.handler) : undefined;
  if (json) {
    printJson({ target, wouldChange, ...(jobs === undefined ? {} : { jobs }) });
    return;
  }
  const change = wouldChange ? `would be ${DONE[verb][0]}` : `${DONE[verb][1]}: nothing would change`;
  const counted = jobs === undefined ? '' : `; ${jobs} job(s) of it now (waiting, running or retrying)`;
  printLine(`${describe(target)} ${change}${counted} (dry run: nothing changed)`);
}

function jobsOf(status: BusStatus, handler: string): number {
  const counts = status.handlers[handler];
  return counts === undefined ? 0 : counts.waiting + counts.running + counts.retrying;
}

function sameTarget(a: RuleTarget, b: RuleTarget): boolean {
  return 'handler' in a
    ? 'handler' in b && a.handler === b.handler
    : 'handlingKey' in b && a.handlingKey === b.handlingKey;
}

/** A handler if the bus has one of that name, else a handling key (the bus refuses one it does not know). */
function targetOf(bus: EventBus, name: string, key: boolean): RuleTarget {
  if (!key && bus.handlers.all().some((h) => h.name === name)) return { handler: name };
  return { handlingKey: name };
}

function describe(target: RuleTarget): string {
  return 'handler' in target ? `handler ${target.handler}` : `handling key ${target.handlingKey}`;
}
