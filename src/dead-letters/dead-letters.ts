import { describeError, type Logger } from '../support/logger.js';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import type { OperatorAudit } from '../support/operator-audit.js';
import type { DeadLetter } from './dead-letter.js';
import { DeadLetterKinds, type DeadLetterRedriver } from './dead-letter-kinds.js';
import type { DeadLetterFilter, DeadLetterStore } from './dead-letter-store.js';
import { CorruptDeadLetterError } from './errors/corrupt-dead-letter.error.js';
import { DeadLetterFilterError } from './errors/dead-letter-filter.error.js';
import { DeadLetterRedriveError, type RedriveFailure } from './errors/dead-letter-redrive.error.js';

/** Which dead letters to re-drive or purge: one id, a list of ids, a filter, or `'all'`. */
export type DeadLetterTarget = 'all' | string | readonly string[] | DeadLetterFilter;

/** What {@link DeadLetters} needs from its bus; the kinds it re-drives are registered on `kinds`. */
export interface DeadLettersDeps {
  /** Where the letters are. */
  readonly store: DeadLetterStore;
  /** Where letters that cannot be read are reported. */
  readonly logger: Logger;
  /** Where re-drives and purges are recorded (`bus.audit`); none, nothing is. */
  readonly audit?: OperatorAudit;
}

/** The letters of one redriver (one or more kinds) prepared for one call of its `run`. */
interface Prepared {
  readonly work: unknown[];
  readonly letters: DeadLetter[];
}

/** The letters a target selects, and the stored letters that could not be read on the way. */
interface Selection {
  readonly letters: DeadLetter[];
  readonly corrupt: CorruptDeadLetterError[];
}

/**
 * The dead letters of a bus (`bus.deadLetters`): work given up after its last
 * attempt, kept until it is re-driven or purged.
 */
export class DeadLetters {
  /** How each kind of letter is re-driven, registered by the kind's owner. */
  readonly kinds = new DeadLetterKinds();

  constructor(private readonly deps: DeadLettersDeps) {}

  /**
   * Letters matching `filter` (all when left out), oldest first. A stored
   * letter that cannot be read is left out and logged as an error
   * (`CorruptDeadLetterError`, naming its id): purge it by id.
   */
  async list(filter?: DeadLetterFilter): Promise<DeadLetter[]> {
    if (filter !== undefined) checkFields(filter);
    return (await this.read(filter)).letters;
  }

  /** One letter by id, or `undefined`; throws `CorruptDeadLetterError` when it cannot be read. */
  get(id: string): Promise<DeadLetter | undefined> {
    return this.deps.store.get(id);
  }

  /**
   * Gives letters another go, each by the redriver its kind's owner
   * registered on {@link DeadLetters.kinds}, and removes them; returns how many. A `handler`
   * letter runs only its handler (a sync one too, without the rest of its
   * chain or the event's other handlers), as a fresh job with that handler's
   * attempts and backoff; if those fail, it comes back as a new letter. An
   * `undecodable` or `event` letter is published again as an event (e.g. once
   * its class is deployed). A `webhook` letter's events go back to the router's
   * queue for its subscriber, as a new batch. Letters that still cannot be decoded, whose handler this
   * process does not know, of a kind no one registered (`UnknownDeadLetterKindError`),
   * or that cannot be read from the store, stay, and a
   * {@link DeadLetterRedriveError} names them once the others are re-driven.
   * Recorded in `bus.audit` with `by` (who asks; by default source `api`,
   * this process's `user@host`) and how many were re-driven.
   */
  redrive(target: DeadLetterTarget, by?: OperatorOrigin): Promise<number> {
    // How many were re-driven before a kind's run failed: the trail records them though the call throws.
    let done = 0;
    return this.audited(
      'dead-letters.redrive',
      target,
      by,
      () => this.redriveNow(target, (count) => (done = count)),
      () => (done > 0 ? done : undefined),
    );
  }

  private async redriveNow(target: DeadLetterTarget, onRedriven: (count: number) => void): Promise<number> {
    const { letters, corrupt } = await this.select(target);
    const prepared = new Map<DeadLetterRedriver, Prepared>();
    let oneByOne = 0;
    const failed: RedriveFailure[] = corrupt.map((error) => ({ id: error.id, error: error.message }));
    const errors: unknown[] = [...corrupt];
    for (const letter of letters) {
      try {
        const redriver = this.kinds.redriverOf(letter);
        const work = redriver.prepare(letter);
        if (redriver.oneByOne === true) {
          // Each removed as soon as its work is done: a letter that fails stays, alone.
          await redriver.run([work]);
          await this.deps.store.remove([{ id: letter.id, deadAt: letter.deadAt }]);
          oneByOne++;
          continue;
        }
        const group = prepared.get(redriver) ?? { work: [], letters: [] };
        group.work.push(work);
        group.letters.push(letter);
        prepared.set(redriver, group);
      } catch (error) {
        failed.push({ id: letter.id, error: describeError(error).message });
        errors.push(error);
      }
    }
    // Each kind's run on its own: the letters of a kind whose work ran are removed even when another kind's run
    // fails, rather than staying to run again at the next re-drive; that failure is then thrown as it is.
    const groups = [...prepared.values()];
    const outcomes = await Promise.allSettled(
      [...prepared].map(([redriver, group]) => redriver.run(group.work)),
    );
    const redriven = groups.flatMap((group, i) => (outcomes[i]?.status === 'fulfilled' ? group.letters : []));
    const runFailure = outcomes.find((outcome) => outcome.status === 'rejected');
    // By version: a letter that already failed again since is a new failure and stays.
    await this.deps.store.remove(redriven.map(({ id, deadAt }) => ({ id, deadAt })));
    onRedriven(redriven.length + oneByOne);
    if (runFailure !== undefined) throw runFailure.reason;
    if (failed.length > 0) {
      const cause = errors.length === 1 ? errors[0] : new AggregateError(errors, 'redrive failures');
      throw new DeadLetterRedriveError(redriven.length + oneByOne, failed, { cause });
    }
    return redriven.length + oneByOne;
  }

  /**
   * Deletes letters without running anything; returns how many. An id,
   * `'all'`, or a filter that sets only `since` and `until` (every letter
   * given up in that window) removes letters that cannot be read too; any
   * other filter cannot match them. Recorded in `bus.audit` with `by` and
   * how many were deleted.
   */
  purge(target: DeadLetterTarget, by?: OperatorOrigin): Promise<number> {
    return this.audited('dead-letters.purge', target, by, () => this.purgeNow(target));
  }

  private audited(
    action: string,
    target: DeadLetterTarget,
    by: OperatorOrigin | undefined,
    work: () => Promise<number>,
    doneSoFar: () => number | undefined = () => undefined,
  ): Promise<number> {
    const { audit } = this.deps;
    if (audit === undefined) return work();
    return audit.run(
      {
        action,
        target: describeTarget(target),
        by,
        countOf: (count) => count,
        // Part of a re-drive ran: the letters it re-drove are gone, so the trail says how many.
        partialOf: (error) => (error instanceof DeadLetterRedriveError ? error.redriven : doneSoFar()),
      },
      work,
    );
  }

  private async purgeNow(target: DeadLetterTarget): Promise<number> {
    if (typeof target === 'string' && target !== 'all') return this.deps.store.remove([target]);
    if (isIdList(target)) return this.deps.store.remove(target);
    const { letters, corrupt } = await this.select(target);
    const everyLetter = target === 'all' || onlyTimeBounds(target);
    const unreadable = everyLetter ? corrupt.map((error) => error.id) : [];
    return this.deps.store.remove([...letters.map((l) => l.id), ...unreadable]);
  }

  private async select(target: DeadLetterTarget): Promise<Selection> {
    if (target === 'all') return this.read();
    if (typeof target === 'string') {
      const letter = await this.deps.store.get(target);
      return { letters: letter === undefined ? [] : [letter], corrupt: [] };
    }
    if (isIdList(target)) return this.readIds(target);
    checkFilter(target);
    return this.read(target);
  }

  // Letters by id: one that cannot be read is reported like a corrupt letter in a list.
  private async readIds(ids: readonly string[]): Promise<Selection> {
    const letters: DeadLetter[] = [];
    const corrupt: CorruptDeadLetterError[] = [];
    for (const id of ids) {
      try {
        const letter = await this.deps.store.get(id);
        if (letter !== undefined) letters.push(letter);
      } catch (error) {
        if (!(error instanceof CorruptDeadLetterError)) throw error;
        corrupt.push(error);
      }
    }
    return { letters, corrupt };
  }

  // One bad letter must not hide the others from the operator: it is logged and left out.
  private async read(filter?: DeadLetterFilter): Promise<Selection> {
    const corrupt: CorruptDeadLetterError[] = [];
    const letters = await this.deps.store.list(filter, (error) => {
      corrupt.push(error);
      this.deps.logger.error(
        { deadLetter: error.id, code: error.code, error: error.message },
        'a stored dead letter cannot be read; it is left out: purge it by id',
      );
    });
    return { letters, corrupt };
  }
}

/** The fields a {@link DeadLetterFilter} has. */
const FILTER_FIELDS: ReadonlySet<string> = new Set([
  'handler',
  'handlingKey',
  'eventId',
  'kind',
  'reason',
  'since',
  'until',
  'errorIncludes',
  'order',
  'after',
  'limit',
] satisfies (keyof DeadLetterFilter)[]);

/**
 * Refuses a filter that would select every letter by accident: one with no
 * field set (`{}`, or only `undefined` values, as `{ handler: query.handler }`
 * with no `handler` in the query), or one with a field no filter has (a typo,
 * `{ hanlder }`, which would match every letter).
 */
function checkFilter(filter: DeadLetterFilter): void {
  checkFields(filter);
  // `order` alone selects every letter too.
  const selecting = Object.entries(filter).filter(([field]) => field !== 'order');
  if (selecting.every(([, value]) => value === undefined)) throw new DeadLetterFilterError();
}

/** Refuses a filter that is not an object, has a field no filter has, or a `since`, `until` or `limit` it cannot use. */
function checkFields(filter: DeadLetterFilter): void {
  if (typeof filter !== 'object' || filter === null) {
    throw new DeadLetterFilterError(
      `say which dead letters: an id, a list of ids, 'all' or a filter object, got ${filter === null ? 'null' : typeof filter}`,
    );
  }
  const unknown = Object.keys(filter).filter((field) => !FILTER_FIELDS.has(field));
  if (unknown.length > 0) {
    throw new DeadLetterFilterError(
      `the dead-letter filter has no field ${unknown.map((f) => JSON.stringify(f)).join(', ')} (the fields are ${[...FILTER_FIELDS].join(', ')}): nothing was selected`,
    );
  }
  for (const field of ['since', 'until'] as const) {
    const at: unknown = filter[field];
    if (at !== undefined && !(at instanceof Date && !Number.isNaN(at.getTime()))) {
      throw new DeadLetterFilterError(
        `the dead-letter filter's ${field} must be a valid Date, got ${JSON.stringify(at)}`,
      );
    }
  }
  checkCursor(filter);
  const { limit } = filter;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new DeadLetterFilterError(
      `the dead-letter filter's limit must be a positive integer, got ${JSON.stringify(limit)}`,
    );
  }
}

// `order` one of the two, `after` a letter's id and time, `errorIncludes` text.
function checkCursor(filter: DeadLetterFilter): void {
  const { order, after, errorIncludes } = filter;
  if (order !== undefined && order !== 'oldest' && order !== 'newest') {
    throw new DeadLetterFilterError(
      `the dead-letter filter's order must be 'oldest' or 'newest', got ${JSON.stringify(order)}`,
    );
  }
  if (errorIncludes !== undefined && (typeof errorIncludes !== 'string' || errorIncludes === '')) {
    throw new DeadLetterFilterError(
      `the dead-letter filter's errorIncludes must be non-empty text, got ${JSON.stringify(errorIncludes)}`,
    );
  }
  if (after === undefined) return;
  const valid =
    typeof after === 'object' &&
    after !== null &&
    typeof after.id === 'string' &&
    after.deadAt instanceof Date &&
    !Number.isNaN(after.deadAt.getTime());
  if (!valid) {
    throw new DeadLetterFilterError(
      `the dead-letter filter's after must be a letter's { id, deadAt } (a Date), got ${JSON.stringify(after)}`,
    );
  }
}

function isIdList(target: DeadLetterTarget): target is readonly string[] {
  return Array.isArray(target);
}

// A window in time selects every letter in it, readable or not (a letter's time is stored beside it).
function onlyTimeBounds(filter: DeadLetterFilter): boolean {
  return Object.entries(filter).every(
    ([field, value]) => value === undefined || field === 'since' || field === 'until',
  );
}

/** A target as the audit trail shows it: `all`, an id, a few ids, or a filter as JSON. */
function describeTarget(target: DeadLetterTarget): string {
  if (typeof target === 'string') return target;
  if (isIdList(target)) {
    const shown = target.slice(0, 3).join(',');
    return target.length <= 3 ? shown : `${shown},... (${target.length} ids)`;
  }
  return JSON.stringify(target);
}
