import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeadLetterKind, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
import type { DeadLetterTarget } from '../dead-letters/dead-letters.js';
import { DeadLetterRedriveError } from '../dead-letters/errors/dead-letter-redrive.error.js';
import type { OperatorNote } from '../event-store/operator-actions.js';
import type { RuleTarget } from '../scheduling/scheduling-rule.js';
import { isCommitbusError } from '../support/commitbus-error.js';
import { TransportUnavailableError } from '../support/errors/transport-unavailable.error.js';
import { describeError, type Logger } from '../support/logger.js';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { readSnapshot, type SnapshotSources } from './dashboard-snapshot.js';
import { limitOf } from './dead-letter-query.js';
import { DashboardRequestError } from './errors/dashboard-request.error.js';
import { actionQueueOf } from './one-action-at-a-time.js';
import { noAnswerMessage } from './read-within.js';
import { dashboardOrigin } from './request-actor.js';
import { refuseWithoutHeader } from './request-guard.js';

type Body = Record<string, unknown>;
type Action = (body: Body, by: OperatorOrigin) => Promise<object>;

const FILTER_FIELDS = ['handler', 'handlingKey', 'eventId', 'kind', 'reason'] as const;
const RULE_ACTIONS = ['pause', 'resume', 'block', 'unblock'] as const;

/** How many letters `GET api/dead-letters` lists when `limit` is not given. */
export const DEAD_LETTERS_LIMIT = 200;
/** The most letters one `GET api/dead-letters` lists. */
export const DEAD_LETTERS_MAX_LIMIT = 1_000;

/**
 * The JSON API under `<basePath>/api`: `GET overview` and `GET dead-letters`
 * (`?limit=&handler=&handlingKey=&eventId=&kind=&reason=`) read; every action
 * is a POST that must carry the header of {@link refuseWithoutHeader} (the
 * server's cross-site hook has vetted its origin already).
 */
export function registerDashboardApi(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  const { bus, eventStore } = sources;
  const logger = bus.logger;
  app.get(`${base}/api/overview`, () => readSnapshot(sources));
  app.get(`${base}/api/dead-letters`, async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const query = listQuery(bodyOf(request.query));
      const letters = await readWithin(() => bus.deadLetters.list(query), sources.readTimeoutMs);
      if (letters !== NO_ANSWER) return letters;
      return reply.code(503).send({ message: noAnswerMessage(sources.readTimeoutMs) });
    } catch (error) {
      return failure(reply, error, logger);
    }
  });

  const post = (path: string, act: Action) =>
    app.post(`${base}/api${path}`, async (request: FastifyRequest, reply: FastifyReply) => {
      const refused = refuseWithoutHeader(request);
      if (refused !== undefined) return reply.code(403).send({ message: refused });
      try {
        return await act(bodyOf(request.body), dashboardOrigin(request, sources.basicChecked));
      } catch (error) {
        return failure(reply, error, logger);
      }
    });

  const inTurn = actionQueueOf(app);
  post('/dead-letters/redrive', async (body, by) => {
    const target = letterTarget(body);
    const redriven = await inTurn(() => bus.deadLetters.redrive(target, by));
    return { redriven, message: `re-drove ${redriven} dead letter(s)` };
  });
  post('/dead-letters/purge', async (body, by) => {
    const target = letterTarget(body);
    const purged = await inTurn(() => bus.deadLetters.purge(target, by));
    return { purged, message: `purged ${purged} dead letter(s)` };
  });
  post('/rules', async (body, by) => {
    const action = oneOf(body.action, RULE_ACTIONS, 'action');
    const target = ruleTarget(body);
    const changed = await bus.rules[action](target, by);
    const name = 'handler' in target ? `handler ${target.handler}` : `handling key ${target.handlingKey}`;
    return { changed, message: `${action} ${name}${changed ? '' : ': nothing to change'}` };
  });
  post('/ordering/redrive', async (body, by) => {
    const key = text(body.key, 'key');
    const lanes = await bus.ordering.redrive(key, by);
    return { lanes, message: `re-drove ${lanes} halted lane(s) of ${key}` };
  });
  post('/ordering/skip', async (body, by) => {
    const key = text(body.key, 'key');
    const lanes = await bus.ordering.skip(key, by);
    return { lanes, message: `skipped the failed handler of ${lanes} lane(s) of ${key}` };
  });
  post('/event-store/retry', async (_body, by) => {
    const event = await storeOf(eventStore).retry(noteOf(by));
    return { v: event.v, message: `retrying v${event.v}` };
  });
  post('/event-store/skip', async (body, by) => {
    const v = body.v;
    if (typeof v !== 'number') throw new DashboardRequestError('v must be the version to skip, a number');
    const event = await storeOf(eventStore).skip(v, noteOf(by));
    return { v: event.v, message: `skipped v${event.v}` };
  });
}

/** An event-store note of a dashboard action: `by` its actor, on the bus's trail from the dashboard. */
function noteOf(by: OperatorOrigin): OperatorNote {
  return by.actor === undefined ? { source: 'dashboard' } : { by: by.actor, source: 'dashboard' };
}

function storeOf<T>(store: T | undefined): T {
  if (store === undefined) {
    throw new DashboardRequestError('this dashboard was started without an event store (pass eventStore)');
  }
  return store;
}

/** A request's JSON body (or query, or a nested object of one) as fields; refuses anything but an object. */
export function bodyOf(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new DashboardRequestError('the request body must be a JSON object');
  }
  return body as Body;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new DashboardRequestError(`${field} must be a non-empty string`);
  }
  return value;
}

function oneOf<T extends string>(value: unknown, values: readonly T[], field: string): T {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  throw new DashboardRequestError(`${field} must be one of ${values.join(', ')}, got ${String(value)}`);
}

/** `{ id }`, `{ all: true }` or `{ filter: { handler?, handlingKey?, eventId?, kind?, reason? } }`. */
function letterTarget(body: Body): DeadLetterTarget {
  if (body.all === true) return 'all';
  if (body.id !== undefined) return letterId(body.id);
  const filter = body.filter;
  if (typeof filter !== 'object' || filter === null) {
    throw new DashboardRequestError('say which dead letters: { id }, { filter: {...} } or { all: true }');
  }
  const picked = filterOf(filter as Body);
  if (Object.keys(picked).length === 0) {
    throw new DashboardRequestError(
      'an empty filter would select every dead letter: fill in a field, or use { all: true }',
    );
  }
  return picked;
}

// A letter id is `<event id>.<handler>`, `undecodable.<hash>`, `event.<...>` or `webhook.<batch>`: never `all`.
function letterId(value: unknown): string {
  const id = text(value, 'id');
  if (!id.includes('.')) {
    throw new DashboardRequestError(
      `id must be a dead letter's id (like <event id>.<handler>), got ${id}: to select every letter send { all: true }`,
    );
  }
  return id;
}

function filterOf(source: Body): { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } {
  const picked: { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } = {};
  for (const field of FILTER_FIELDS) {
    const value = source[field];
    if (value === undefined || value === '') continue;
    if (field === 'kind') picked.kind = text(value, field) as DeadLetterKind;
    else if (field === 'reason') picked.reason = text(value, field) as DeadLetterReason;
    else picked[field] = text(value, field);
  }
  return picked;
}

// `GET api/dead-letters?limit=50&handler=emails.send`: at most DEAD_LETTERS_MAX_LIMIT.
function listQuery(query: Body): DeadLetterFilter {
  return { ...filterOf(query), limit: limitOf(query.limit, DEAD_LETTERS_LIMIT, DEAD_LETTERS_MAX_LIMIT) };
}

function ruleTarget(body: Body): RuleTarget {
  const handler = body.handler;
  const handlingKey = body.handlingKey;
  if ((handler === undefined) === (handlingKey === undefined)) {
    throw new DashboardRequestError('a rule targets either a handler or a handling key: give exactly one');
  }
  return handler !== undefined
    ? { handler: text(handler, 'handler') }
    : { handlingKey: text(handlingKey, 'handlingKey') };
}

/**
 * Answers a failed API request: the operator's mistakes (unknown handler,
 * nothing halted) are 400s with what to do, a partial re-drive a 409, an
 * outage a 503; anything else is a fault of ours or of a store: logged, and
 * answered without its message (it may name internals).
 */
export function failure(reply: FastifyReply, error: unknown, logger: Logger): FastifyReply {
  if (error instanceof DeadLetterRedriveError) {
    return reply
      .code(409)
      .send({ message: error.message, code: error.code, redriven: error.redriven, failed: error.failed });
  }
  // An outage is no mistake of the operator's: try again later (its message names the server, no password).
  if (error instanceof TransportUnavailableError) {
    return reply.code(503).send({ message: error.message, code: error.code });
  }
  if (isCommitbusError(error)) {
    return reply.code(400).send({ message: error.message, code: error.code });
  }
  logger.error(
    { method: reply.request.method, url: reply.request.url, error: describeError(error) },
    'a dashboard request failed',
  );
  return reply.code(500).send({ message: 'the dashboard failed to do that: see the server log' });
}
