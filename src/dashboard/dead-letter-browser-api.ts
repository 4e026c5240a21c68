import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { bodyOf, failure } from './dashboard-api.js';
import type { SnapshotSources } from './dashboard-snapshot.js';
import { type ErrorGroup, type ErrorGroupKey, groupByError } from './dead-letter-error-groups.js';
import { browserFilterOf, type Fields, formatCursor, limitOf, parseCursor } from './dead-letter-query.js';
import {
  checkPreview,
  describeSelection,
  type LetterSelection,
  previewOf,
  readSelection,
  SELECTION_MAX,
  type SelectionPreview,
} from './dead-letter-selection.js';
import { DashboardRequestError } from './errors/dashboard-request.error.js';
import { SelectionChangedError } from './errors/selection-changed.error.js';
import { actionQueueOf } from './one-action-at-a-time.js';
import { noAnswerMessage } from './read-within.js';
import { dashboardOrigin } from './request-actor.js';
import { refuseWithoutHeader } from './request-guard.js';

/** How many letters a page of the browser lists unless `limit` says. */
export const BROWSER_PAGE = 50;
/** The most letters one page of the browser lists. */
export const BROWSER_MAX_PAGE = 1_000;

/** A page of the browser: letters newest first, and the cursor of the next page (`null` on the last). */
export interface LetterPage {
  /** The page's letters, newest first. */
  readonly letters: readonly DeadLetter[];
  /** `after=` for the next page, or `null`. */
  readonly next: string | null;
}

/** The grouped view: the groups, and how many letters were read to count them. */
export interface ErrorGroups {
  /** The groups, the largest first. */
  readonly groups: readonly ErrorGroup[];
  /** The letters read (every letter matching the filter, at most {@link SELECTION_MAX}). */
  readonly scanned: number;
}

/** Reads a page of the browser: `query` holds its filter, `after` and `limit`. */
export async function readLetterPage(sources: SnapshotSources, query: Fields): Promise<LetterPage> {
  const limit = limitOf(query.limit, BROWSER_PAGE, BROWSER_MAX_PAGE);
  const after = parseCursor(query.after);
  const read = await sources.bus.deadLetters.list({
    ...browserFilterOf(query),
    order: 'newest',
    ...(after === undefined ? {} : { after }),
    limit: limit + 1,
  });
  const letters = read.slice(0, limit);
  const last = letters.at(-1);
  return { letters, next: read.length > limit && last !== undefined ? formatCursor(last) : null };
}

/**
 * Counts the letters matching `query`'s filter by handler and first line of
 * error. It reads and decodes every matching letter (up to
 * {@link SELECTION_MAX}), so it runs only when the operator opens the view.
 */
export async function readErrorGroups(sources: SnapshotSources, query: Fields): Promise<ErrorGroups> {
  const letters = await readSelection(sources.bus.deadLetters, { filter: browserFilterOf(query) });
  return { groups: groupByError(letters), scanned: letters.length };
}

/**
 * The browser's JSON API under `<basePath>/api/dead-letters`: `GET page`
 * (newest first, `?after=` the previous page's `next`), `GET groups`, `GET
 * letter?id=`, and `POST bulk`, whose `dryRun` returns the count and a
 * preview that the confirming POST must send back (see {@link SelectionPreview}).
 */
export function registerDeadLetterBrowserApi(
  app: FastifyInstance,
  base: string,
  sources: SnapshotSources,
): void {
  const logger = sources.bus.logger;
  const get = (path: string, read: (query: Fields) => Promise<object | undefined>) =>
    app.get(`${base}/api/dead-letters/${path}`, async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const answer = await readWithin(() => read(bodyOf(request.query)), sources.readTimeoutMs);
        if (answer === NO_ANSWER) {
          return reply.code(503).send({ message: noAnswerMessage(sources.readTimeoutMs) });
        }
        return (
          answer ?? reply.code(404).send({ message: 'no dead letter has that id (re-driven or purged?)' })
        );
      } catch (error) {
        return failure(reply, error, logger);
      }
    });
  get('page', (query) => readLetterPage(sources, query));
  get('groups', (query) => readErrorGroups(sources, query));
  get('letter', (query) => sources.bus.deadLetters.get(idOf(query.id)));
  const inTurn = actionQueueOf(app);

  app.post(`${base}/api/dead-letters/bulk`, async (request: FastifyRequest, reply: FastifyReply) => {
    const refused = refuseWithoutHeader(request);
    if (refused !== undefined) return reply.code(403).send({ message: refused });
    try {
      const body = bodyOf(request.body);
      // A dry run only reads; a confirmation waits for the actions before it (see actionQueueOf).
      if (body.dryRun === true)
        return await bulk(sources, body, dashboardOrigin(request, sources.basicChecked));
      return await inTurn(() => bulk(sources, body, dashboardOrigin(request, sources.basicChecked)));
    } catch (error) {
      if (error instanceof SelectionChangedError) {
        return reply.code(409).send({ message: error.message, code: error.code });
      }
      return failure(reply, error, logger);
    }
  });
}

// A dry run counts; a confirmation acts on exactly what its preview saw, or on nothing.
async function bulk(sources: SnapshotSources, body: Fields, origin: OperatorOrigin): Promise<object> {
  const action = body.action;
  if (action !== 'redrive' && action !== 'purge') {
    throw new DashboardRequestError(`action must be redrive or purge, got ${String(action)}`);
  }
  const verb = action === 'redrive' ? 'Re-drive' : 'Purge';
  const selection = selectionOf(body);
  const letters = sources.bus.deadLetters;
  if (body.dryRun === true) {
    const preview = previewOf(await readSelection(letters, selection));
    return { ...preview, message: describeSelection(verb, preview.count, selection) };
  }
  const preview = previewFrom(body.preview);
  const selected = await readSelection(letters, selection, preview.notAfter);
  checkPreview(selected, preview);
  const ids = selected.map((letter) => letter.id);
  // The trail names what the operator chose (the filter, the group), not the ids it came to.
  const by = { ...origin, asked: JSON.stringify({ ...selection.filter, ...selection.group }) };
  if (action === 'purge') {
    const purged = ids.length === 0 ? 0 : await letters.purge(ids, by);
    return { purged, message: `purged ${purged} dead letter(s)` };
  }
  const redriven = ids.length === 0 ? 0 : await letters.redrive(ids, by);
  return { redriven, message: `re-drove ${redriven} dead letter(s)` };
}

function selectionOf(body: Fields): LetterSelection {
  const filter = browserFilterOf(bodyOf(body.filter));
  const group = body.group;
  if (group === undefined || group === null) return { filter };
  const { handler, message } = bodyOf(group);
  if (
    typeof message !== 'string' ||
    !(handler === undefined || handler === null || typeof handler === 'string')
  ) {
    throw new DashboardRequestError('group must be { handler, message }: a handler name (or null) and text');
  }
  const key: ErrorGroupKey = { handler: handler ?? undefined, message };
  return { filter, group: key };
}

function previewFrom(value: unknown): SelectionPreview {
  const { count, notAfter, digest } = bodyOf(value);
  const valid =
    Number.isInteger(count) &&
    (notAfter === null || Number.isInteger(notAfter)) &&
    typeof digest === 'string';
  if (!valid) {
    throw new DashboardRequestError(
      'a bulk action acts only on what its preview counted: send { dryRun: true } first, then { preview } with the count, notAfter and digest it returned',
    );
  }
  return { count: count as number, notAfter: notAfter as number | null, digest: digest as string };
}

function idOf(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new DashboardRequestError('id must be a dead letter id');
  return value;
}
