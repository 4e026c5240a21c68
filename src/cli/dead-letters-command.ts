import type { Command } from 'commander';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import { addDeadLetterBatchCommands } from './dead-letter-batch-commands.js';
import {
  checkHandlerFilter,
  type DeadLetterFlags,
  deadLetterFilter,
  handlerNames,
  withDeadLetterFilters,
} from './dead-letter-filter.js';
import { listDeadLetters } from './dead-letter-pages.js';
import { CliError } from './errors/cli.error.js';
import { listFooter, printJson, printLine, printTable, truncate } from './output.js';
import { withSharedBus } from './with-bus.js';

/** How many letters `dead-letters list` shows without `--limit`. */
const LIST_DEFAULT_LIMIT = 100;

/** Adds `commitbus dead-letters list|show|redrive|purge` over `bus.deadLetters`. */
export function addDeadLettersCommand(program: Command): Command {
  const group = program
    .command('dead-letters')
    .description('work given up after its last attempt: list, show, re-drive, purge');
  withDeadLetterFilters(
    group
      .command('list')
      .description(
        `list dead letters, oldest first (at most ${LIST_DEFAULT_LIMIT} unless --limit says), with an "N of M" footer`,
      )
      .option('--newest-first', 'the newest letters, newest first')
      .option('--json', 'print the letters as one JSON array'),
  ).action(async (flags: ListFlags, command: Command) =>
    withSharedBus(command, async ({ loaded, json }) => {
      const { deadLetters } = loaded.bus;
      const filter = deadLetterFilter(flags);
      await checkHandlerFilter(filter, handlerNames(loaded.bus), deadLetters);
      const limit = filter.limit ?? LIST_DEFAULT_LIMIT;
      const { letters, total } = await listDeadLetters(
        deadLetters,
        filter,
        limit,
        flags.newestFirst === true,
      );
      if (json) printJson(letters);
      else {
        printLetters(letters);
        printLine(listFooter(letters.length, total, 'dead letter(s)', flags.newestFirst === true));
      }
    }),
  );
  group
    .command('show')
    .description('show one dead letter with every attempt')
    .argument('<id>', 'the letter id')
    .option('--json', 'print the letter as one JSON document')
    .action(async (id: string, _flags: unknown, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const letter = await loaded.bus.deadLetters.get(id);
        if (letter === undefined) throw new CliError(`no dead letter with id ${JSON.stringify(id)}`);
        if (json) printJson(letter);
        else printLetter(letter);
      }),
    );
  addDeadLetterBatchCommands(group);
  return group;
}

/** The flags of `dead-letters list`. */
interface ListFlags extends DeadLetterFlags {
  readonly newestFirst?: boolean;
}

function printLetters(letters: readonly DeadLetter[]): void {
  printTable(
    ['id', 'kind', 'handler', 'handling key', 'reason', 'attempts', 'dead at', 'error'],
    letters.map((l) => [
      l.id,
      l.kind,
      l.handler,
      l.handlingKey,
      l.reason,
      l.attempts.length,
      l.deadAt,
      truncate(l.error),
    ]),
  );
}

function printLetter(l: DeadLetter): void {
  printTable(
    ['field', 'value'],
    [
      ['id', l.id],
      ['kind', l.kind],
      ['event id', l.eventId],
      ['handling key', l.handlingKey],
      ['handler', l.handler],
      ['reason', l.reason],
      ['error', l.error],
      ['first failed at', l.firstFailedAt],
      ['dead at', l.deadAt],
      ['payload', truncate(l.payload, 200)],
    ],
  );
  printTable(
    ['attempt', 'at', 'error class', 'error'],
    l.attempts.map((a) => [a.attempt, a.at, a.name, truncate(a.error, 100)]),
  );
}
