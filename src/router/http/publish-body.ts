import { badRequest } from '../errors/api.error.js';
import { ROUTER_EVENT_TYPES, type RouterEvent, type RouterEventType } from '../router-event.js';
import { urlLengthProblem, urlProblem } from '../router-names.js';
import type { ResolvedApiSettings } from './api-settings.js';
import { msgpackSize } from './msgpack-size.js';

const PUBLISH_KEYS = new Set(['type', 'url', 'timestamp', 'data']);

/**
 * The event a `POST /topics/:name` body describes, checked: `type` one of
 * create/update/delete/noop, `url` https without a query, `timestamp` epoch
 * ms or null (then `now`), `data` an object within the size limit, or null.
 * Throws a 400 {@link ApiError} saying what is wrong.
 */
export function parsePublishBody(
  topic: string,
  body: unknown,
  now: number,
  settings: Pick<ResolvedApiSettings, 'allowHttpUrls' | 'maxDataBytes' | 'dataLimitEncoding'>,
): RouterEvent {
  if (!isPlainObject(body)) {
    throw badRequest('bad_event', 'send a JSON object {type, url, timestamp?, data?} as the body');
  }
  const unknown = Object.keys(body).filter((key) => !PUBLISH_KEYS.has(key));
  if (unknown.length > 0) {
    throw badRequest(
      'bad_event',
      `unknown keys ${list(unknown)}: an event has only type, url, timestamp and data`,
    );
  }
  const { type, url, timestamp, data } = body;
  if (typeof type !== 'string' || !(ROUTER_EVENT_TYPES as readonly string[]).includes(type)) {
    throw badRequest('bad_type', `type must be one of ${ROUTER_EVENT_TYPES.join(', ')}`);
  }
  const longUrl = urlLengthProblem(url, 'url');
  if (longUrl !== undefined) throw badRequest('url_too_long', longUrl);
  const badUrl = urlProblem(url, 'url', settings.allowHttpUrls);
  if (badUrl !== undefined) throw badRequest('bad_url', badUrl);
  if (timestamp !== undefined && timestamp !== null && !isTimestamp(timestamp)) {
    throw badRequest(
      'bad_timestamp',
      'timestamp must be an integer number of ms since the epoch, or null for now',
    );
  }
  const event: RouterEvent = {
    topic,
    type: type as RouterEventType,
    url: url as string,
    t: typeof timestamp === 'number' ? timestamp : now,
  };
  if (data === undefined || data === null) return event;
  if (!isPlainObject(data)) throw badRequest('bad_data', 'data must be a JSON object (or null, or left out)');
  let size: number;
  try {
    size = dataSize(data, settings.dataLimitEncoding);
  } catch {
    // Only nesting deep enough to exhaust the stack makes encoding a parsed JSON object throw.
    throw badRequest(
      'data_too_deep',
      'data is nested too deeply to store: flatten it, or send less and let subscribers fetch the entity at url',
    );
  }
  if (size > settings.maxDataBytes) {
    throw badRequest(
      'data_too_large',
      `data is ${size} bytes of ${settings.dataLimitEncoding}; the limit is ${settings.maxDataBytes}: send less and let subscribers fetch the entity at url`,
    );
  }
  return { ...event, data };
}

/** The size of `data` in bytes, as JSON text or as MessagePack (counted as Ruby's msgpack packs it). */
export function dataSize(data: object, encoding: 'json' | 'msgpack'): number {
  return encoding === 'json' ? Buffer.byteLength(JSON.stringify(data), 'utf8') : msgpackSize(data);
}

/** Whether `value` is a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `"a", "b"`, for messages (keys are cut short so a body cannot flood them). */
export function list(keys: readonly string[]): string {
  return keys
    .slice(0, 5)
    .map((key) => JSON.stringify(key.slice(0, 40)))
    .join(', ');
}

function isTimestamp(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
