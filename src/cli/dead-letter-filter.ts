import type { Command } from 'commander';
import type { EventBus } from '../bus/event-bus.js';
import type { DeadLetterKind, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
import type { DeadLetters } from '../dead-letters/dead-letters.js';
import { CliError } from './errors/cli.error.js';

/** The filter flags of `dead-letters list|redrive|purge`. */
export interface DeadLetterFlags {
  /** `--handler`: a handler's name. */
  readonly handler?: string;
  /** `--kind`: a dead-letter kind. */
  readonly kind?: string;
  /** `--key`: a handling key, exactly. */
  readonly key?: string;
  /** `--event`: an event id. */
  readonly event?: string;
  /** `--reason`: a dead-letter reason. */
  readonly reason?: string;
  /** `--since`: ISO 8601 or epoch ms. */
  readonly since?: string;
  /** `--until`: ISO 8601 or epoch ms. */
  readonly until?: string;
  /** `--limit`: a whole number from 1. */
  readonly limit?: string;
}

// Every kind and reason, as records: a kind or reason added to the union fails to compile here until listed.
const KINDS = Object.keys({
  handler: true,
  undecodable: true,
  event: true,
  webhook: true,
} satisfies Record<DeadLetterKind, true>) as readonly DeadLetterKind[];
const REASONS = Object.keys({
  exhausted: true,
  timeout: true,
  'non-retryable': true,
  'unknown-handler': true,
  'unknown-event-type': true,
  malformed: true,
  undeliverable: true,
  crashed: true,
  expired: true,
  'skipped-by-rebase': true,
} satisfies Record<DeadLetterReason, true>) as readonly DeadLetterReason[];

/** Adds the filter flags to a `dead-letters` subcommand. */
export function withDeadLetterFilters(command: Command): Command {
  return command
    .option('--handler <name>', 'letters of this handler')
    .option('--kind <kind>', `letters of this kind (${KINDS.join(', ')})`)
    .option('--key <handlingKey>', 'letters of events with exactly this handling key')
    .option('--event <id>', 'letters of this event id')
    .option('--reason <reason>', `letters given up for this reason (${REASONS.join(', ')})`)
    .option('--since <time>', 'letters given up at or after this time (ISO 8601, or epoch ms)')
    .option('--until <time>', 'letters given up before this time (ISO 8601, or epoch ms)')
    .option('--limit <n>', 'at most this many, oldest first');
}

/**
 * The {@link DeadLetterFilter} the flags name (empty when none is given).
 * Refuses a kind or reason no letter can have, and a `--since` not before `--until`.
 */
export function deadLetterFilter(flags: DeadLetterFlags): DeadLetterFilter {
  if (flags.kind !== undefined && !KINDS.includes(flags.kind as DeadLetterKind)) {
    throw new CliError(`--kind must be one of ${KINDS.join(', ')}, got ${JSON.stringify(flags.kind)}`);
  }
  if (flags.reason !== undefined && !REASONS.includes(flags.reason as DeadLetterReason)) {
    throw new CliError(`--reason must be one of ${REASONS.join(', ')}, got ${JSON.stringify(flags.reason)}`);
  }
  const filter = readFilter(flags);
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw new CliError(
      `--since must be before --until (no letter can match): got ${filter.since.toISOString()} and ${filter.until.toISOString()}`,
    );
  }
  return filter;
}

/**
 * Refuses a `--handler` that names no handler of the bus's handler table and
 * no stored letter (a typo would list an empty table, or re-drive nothing).
 * A name only letters have (a handler since removed, a webhook subscriber) is
 * accepted.
 */
export async function checkHandlerFilter(
  filter: DeadLetterFilter,
  known: readonly string[],
  letters: Pick<DeadLetters, 'list'>,
): Promise<void> {
  const { handler } = filter;
  if (handler === undefined || known.includes(handler)) return;
  if ((await letters.list({ handler, limit: 1 })).length > 0) return;
  throw new CliError(
    `--handler ${JSON.stringify(handler)}: no handler has that name and no dead letter names it (handlers: ${known.join(', ') || 'none'})`,
  );
}

/** The names in the bus's handler table. */
export function handlerNames(bus: Pick<EventBus, 'handlers'>): string[] {
  return bus.handlers.all().map((handler) => handler.name);
}

function readFilter(flags: DeadLetterFlags): DeadLetterFilter {
  return {
    ...(flags.handler !== undefined ? { handler: flags.handler } : {}),
    ...(flags.kind !== undefined ? { kind: flags.kind as DeadLetterKind } : {}),
    ...(flags.key !== undefined ? { handlingKey: flags.key } : {}),
    ...(flags.event !== undefined ? { eventId: flags.event } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason as DeadLetterReason } : {}),
    ...(flags.since !== undefined ? { since: timeOf(flags.since, '--since') } : {}),
    ...(flags.until !== undefined ? { until: timeOf(flags.until, '--until') } : {}),
    ...(flags.limit !== undefined ? { limit: countOf(flags.limit, '--limit') } : {}),
  };
}

/** A whole number from 1, or a {@link CliError} naming `flag`. */
export function countOf(raw: string, flag: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new CliError(`${flag} must be a whole number from 1, got ${JSON.stringify(raw)}`);
  return n;
}

function timeOf(raw: string, flag: string): Date {
  const date = /^\d+$/.test(raw) ? new Date(Number(raw)) : new Date(raw);
  if (Number.isNaN(date.getTime())) {
    throw new CliError(`${flag} must be an ISO 8601 time or epoch ms, got ${JSON.stringify(raw)}`);
  }
  return date;
}
