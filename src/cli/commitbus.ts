#!/usr/bin/env node
import { Command } from 'commander';
import { consoleLogger, describeError } from '../support/logger.js';
import { addRouterCommand } from './router-command.js';

/** The `commitbus` command line: `commitbus router` today. */
const program = new Command('commitbus').description('commitbus: events after commit, handled reliably');
addRouterCommand(program);
program.parseAsync(process.argv).catch((error: unknown) => {
  consoleLogger.error(
    { error: describeError(error) },
    `commitbus: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
});
