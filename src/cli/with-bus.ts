import type { Command } from 'commander';
import { type BusModule, closeBusModule, loadBusModule } from './bus-module.js';
import { CliError } from './errors/cli.error.js';
import { refuseUnaskedMemoryTransport } from './memory-transport-guard.js';

/** What a command's action gets: the user's bus module, and whether to print JSON. */
export interface BusCommandContext {
  /** The loaded module. */
  readonly loaded: BusModule;
  /** `--json`: print exactly one JSON document on stdout. */
  readonly json: boolean;
}

/** The options every command but `worker` reads: the global `--module`, and `--json`. */
interface GlobalFlags {
  readonly module?: string;
  readonly json?: boolean;
}

/**
 * Runs `action` on the bus module named by `--module` or `COMMITBUS_MODULE`,
 * then closes it. With `--json`, whatever the module logs with `console.log`
 * goes to stderr, so stdout holds only the command's JSON document.
 */
export async function withBus(
  command: Command,
  action: (ctx: BusCommandContext) => Promise<void>,
): Promise<void> {
  const flags = command.optsWithGlobals<GlobalFlags>();
  const path = flags.module ?? process.env.COMMITBUS_MODULE;
  if (path === undefined || path === '') {
    throw new CliError(
      'name the bus module: pass --module <path> (before the command) or set COMMITBUS_MODULE',
    );
  }
  const json = flags.json === true;
  const restore = json ? logToStderr() : () => {};
  try {
    const loaded = await loadBusModule(path);
    try {
      await action({ loaded, json });
    } finally {
      await closeBusModule(loaded);
    }
  } finally {
    restore();
  }
}

/**
 * {@link withBus} for a command that shows or changes the bus the services
 * and workers share (status, dead letters, rules, ordering, the router's
 * records, the dashboard): refused, saying what to set, when the module's bus
 * runs on SQLite in this process's memory (the embedded default) without `COMMITBUS_TRANSPORT=memory`
 * asking for it, instead of showing an empty bus of its own.
 */
export function withSharedBus(
  command: Command,
  action: (ctx: BusCommandContext) => Promise<void>,
): Promise<void> {
  return withBus(command, async (ctx) => {
    refuseUnaskedMemoryTransport(ctx.loaded.bus, commandPath(command));
    await action(ctx);
  });
}

/** `commitbus router tokens`: the command's name and its parents'. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function logToStderr(): () => void {
  const { log, info } = console;
  const write = process.stdout.write;
  console.log = console.error;
  console.info = console.error;
  // What the module writes to stdout itself goes to stderr too (the command's own output does not:
  // output.ts took the real write at load). A logger writing to file descriptor 1 directly is not caught.
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return () => {
    console.log = log;
    console.info = info;
    process.stdout.write = write;
  };
}
