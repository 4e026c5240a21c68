#!/usr/bin/env node
import { Command } from 'commander';
import { isCommitbusError } from '../support/commitbus-error.js';
import { describeError } from '../support/logger.js';
import { addAuditCommand } from './audit-command.js';
import { addDashboardCommand } from './dashboard-command.js';
import { addDeadLettersCommand } from './dead-letters-command.js';
import { addEventStoreCommand } from './event-store-command.js';
import { addOrderingCommand } from './ordering-command.js';
import { packageVersion } from './package-version.js';
import { redact } from './redact.js';
import { addRouterCommand } from './router-command.js';
import { addRouterInspectCommands } from './router-inspect-commands.js';
import { addRuleCommands } from './rules-command.js';
import { addStatusCommand } from './status-command.js';
import { addWorkerCommand } from './worker-command.js';

/** The `commitbus` command line; every command but `worker` and `router` runs on the bus module `--module` names. */
const program = new Command('commitbus')
  .description('commitbus: events after commit, handled reliably')
  .version(packageVersion(), '-V, --version', "print commitbus's version")
  .option('-m, --module <path>', 'the bus module the command runs on (env COMMITBUS_MODULE)')
  .showHelpAfterError();
addWorkerCommand(program);
addStatusCommand(program);
addDeadLettersCommand(program);
addRuleCommands(program);
addOrderingCommand(program);
addEventStoreCommand(program);
addAuditCommand(program);
addDashboardCommand(program);
addRouterInspectCommands(addRouterCommand(program));

// `commitbus status | head`: a reader that stops reading ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// `router` returns once serving, and exits on its signals; every other command is done when its action is.
let serving = false;
program.hook('preAction', (_program, action) => {
  serving = action.name() === 'router';
});

// A bus module whose promise can never settle (nothing left to run) would end the process with 0.
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  process.stderr.write(
    'commitbus: the command never finished: the bus module (or what it awaits) returned a promise that can no longer settle; check its exported function\n',
  );
  process.exit(1);
});

program
  .parseAsync(process.argv)
  .finally(() => {
    settled = true;
  })
  .then(
    () => {
      // Done: exit even if a connection the module opened keeps the event loop alive.
      if (!serving) process.exit(process.exitCode ?? 0);
    },
    (error: unknown) => {
      const { message, stack } = describeError(error);
      // Expected failures (a commitbus error) say what to do; anything else gets its stack too.
      const detail = isCommitbusError(error) || stack === undefined ? message : stack;
      process.stderr.write(`commitbus: ${redact(detail)}\n`);
      process.exit(1);
    },
  );
