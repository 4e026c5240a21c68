import { badRequest } from '../errors/api.error.js';
import { topicNameProblem, urlLengthProblem, urlProblem, uuidProblem } from '../router-names.js';
import { SUBSCRIBER_DEFAULTS } from '../subscriber-store.js';
import { isPlainObject, list } from './publish-body.js';

/** Timeout bounds and defaults, as Routemaster has them. */
export const SUBSCRIPTION_LIMITS = {
  maxTimeoutMs: 3_600_000,
  timeoutMs: SUBSCRIBER_DEFAULTS.timeoutMs,
  maxEvents: SUBSCRIBER_DEFAULTS.maxEvents,
  // routemaster-client's own bound; a batch is held whole in a worker's memory.
  maxMaxEvents: 10_000,
  // One subscription writes a key per topic: a cap keeps one request from stalling the store.
  maxTopics: 1_000,
} as const;

const SUBSCRIPTION_KEYS = new Set(['topics', 'callback', 'uuid', 'timeout', 'max', 'ordered']);

/** A checked `POST /subscription` body. */
export interface SubscriptionRequest {
  /** Topics, without duplicates. */
  readonly topics: string[];
  /** Where batches go. */
  readonly callback: string;
  /** The Basic username sent with deliveries; `null` (left out, null or empty) for none. */
  readonly uuid: string | null;
  /** ms a batch waits for more events; left out, the subscriber's own (or the default) stays. */
  readonly timeoutMs?: number;
  /** Events in a full batch; left out, as `timeoutMs`. */
  readonly maxEvents?: number;
  /** In-order delivery, when the body says (an extension of Routemaster's API). */
  readonly ordered?: boolean;
}

/** Checks a `POST /subscription` body; throws a 400 {@link ApiError} saying what is wrong. */
export function parseSubscriptionBody(body: unknown, allowHttpUrls: boolean): SubscriptionRequest {
  if (!isPlainObject(body)) {
    throw badRequest(
      'bad_subscription',
      'send a JSON object {topics, callback, uuid?, timeout?, max?} as the body',
    );
  }
  const unknown = Object.keys(body).filter((key) => !SUBSCRIPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw badRequest(
      'bad_subscription',
      `unknown keys ${list(unknown)}: a subscription has topics, callback, uuid, timeout, max and ordered`,
    );
  }
  const { topics, callback, uuid, ordered } = body;
  // Left out or null: the subscriber keeps its own (Routemaster sets them only when given).
  const timeout = body.timeout ?? undefined;
  const max = body.max ?? undefined;
  if (!Array.isArray(topics)) throw badRequest('bad_topics', 'topics must be an array of topic names');
  if (topics.length > SUBSCRIPTION_LIMITS.maxTopics) {
    throw badRequest(
      'bad_topics',
      `topics lists ${topics.length} topics; one subscription takes at most ${SUBSCRIPTION_LIMITS.maxTopics}`,
    );
  }
  for (const topic of topics) {
    const problem = topicNameProblem(topic);
    if (problem !== undefined) throw badRequest('bad_topics', `topics: ${problem}`);
  }
  const longCallback = urlLengthProblem(callback, 'callback');
  if (longCallback !== undefined) throw badRequest('url_too_long', longCallback);
  const badCallback = urlProblem(callback, 'callback', allowHttpUrls, 'callback');
  if (badCallback !== undefined) throw badRequest('bad_callback', badCallback);
  // Routemaster takes a subscription without uuid (its client's own spec sends none), and an empty
  // one, delivered as it delivers none (an empty Basic username): no credentials here for both.
  const noUuid = uuid === undefined || uuid === null || uuid === '';
  const badUuid = noUuid ? undefined : uuidProblem(uuid);
  if (badUuid !== undefined) throw badRequest('bad_uuid', badUuid);
  if (timeout !== undefined && !isIntegerIn(timeout, 0, SUBSCRIPTION_LIMITS.maxTimeoutMs)) {
    throw badRequest(
      'bad_timeout',
      'timeout must be an integer number of ms from 0 to 3,600,000 (default 500)',
    );
  }
  if (max !== undefined && !isIntegerIn(max, 1, SUBSCRIPTION_LIMITS.maxMaxEvents)) {
    throw badRequest(
      'bad_max',
      'max must be an integer from 1 to 10,000 (events in a full batch, default 100)',
    );
  }
  if (ordered !== undefined && typeof ordered !== 'boolean') {
    throw badRequest('bad_ordered', 'ordered must be true or false');
  }
  return {
    topics: [...new Set(topics as string[])],
    callback: callback as string,
    uuid: noUuid ? null : (uuid as string),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    ...(max === undefined ? {} : { maxEvents: max }),
    ...(ordered === undefined ? {} : { ordered }),
  };
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}
