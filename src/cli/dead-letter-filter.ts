import type { Command } from 'commander';
import type { DeadLetterKind, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
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

const KINDS: readonly DeadLetterKind[] = ['handler', 'undecodable', 'event', 'webhook'];

/** Adds the filter flags to a `dead-letters` subcommand. */
export function withDeadLetterFilters(command: Command): Command {
  return command
    .option('--handler <name>', 'letters of this handler')
    .option('--kind <kind>', `letters of this kind (${KINDS.join(', ')})`)
    .option('--key <handlingKey>', 'letters of events with exactly this handling key')
    .option('--event <id>', 'letters of this event id')
    .option('--reason <reason>', 'letters given up for this reason (exhausted, timeout, crashed, ...)')
    .option('--since <time>', 'letters given up at or after this time (ISO 8601, or epoch ms)')
    .option('--until <time>', 'letters given up before this time (ISO 8601, or epoch ms)')
    .option('--limit <n>', 'at most this many, oldest first');
}

/** The {@link DeadLetterFilter} the flags name (empty when none is given). */
export function deadLetterFilter(flags: DeadLetterFlags): DeadLetterFilter {
  if (flags.kind !== undefined && !KINDS.includes(flags.kind as DeadLetterKind)) {
    throw new CliError(`--kind must be one of ${KINDS.join(', ')}, got ${JSON.stringify(flags.kind)}`);
  }
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
