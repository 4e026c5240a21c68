import type { EventRegistry } from '../events/event-registry.js';
import { type BackoffOptions, backoffProblem } from '../support/retry-policy.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import { describeValue } from './describe-value.js';
import { HandlerConfigError } from './errors/handler-config.error.js';
import { UnknownHandlerError } from './errors/unknown-handler.error.js';
import type { EventHandlersConfig, HandlerEntry, HandlerEntryOptions } from './event-handlers-config.js';
import { type Handler, isHandler } from './handler.js';
import { boundClassesOf } from './handlers-builder.js';

/** A handler entry with every option resolved. */
export interface ResolvedHandler {
  /** The handler. */
  readonly handler: Handler;
  /** Its name. */
  readonly name: string;
  /** Runs inline in the drain when true, as its own job when false. */
  readonly sync: boolean;
  /** Total runs before its failure is kept. */
  readonly attempts: number;
  /** Wait between runs. */
  readonly backoff: BackoffOptions;
  /** Runs effectively once per event, recorded in the database. */
  readonly idempotent: boolean;
  /** Longest a run may take, in milliseconds (`0`: no limit). */
  readonly timeoutMs: number;
}

/** The handlers an event with one handling key runs, in order. */
export interface HandlerPlan {
  /** Every handler in dispatch order. */
  readonly all: readonly ResolvedHandler[];
  /** The sync ones, in order. */
  readonly sync: readonly ResolvedHandler[];
  /** The async ones, in order. */
  readonly async: readonly ResolvedHandler[];
}

/** Defaults applied to entries that do not set them. */
export interface HandlerDefaults {
  /** Default total runs. */
  readonly attempts: number;
  /** Default wait between runs. */
  readonly backoff: BackoffOptions;
  /** Default longest run, in milliseconds (`0`: no limit). */
  readonly timeoutMs: number;
}

/**
 * `EVENT_HANDLERS`, validated against the registered event classes and
 * compiled into one plan per handling key.
 */
export class HandlerTable {
  private readonly plans = new Map<string, HandlerPlan>();
  private readonly byKey = new Map<string, ResolvedHandler[]>();
  /** The registered event classes' handling keys. */
  private readonly keys: readonly string[];

  constructor(config: EventHandlersConfig, registry: EventRegistry, defaults: HandlerDefaults) {
    const known = registry.keys();
    this.keys = known;
    const producible = new Set(known.flatMap(prefixesOf));
    const namesSeen = new Map<string, Handler>();
    for (const [key, entries] of Object.entries(config)) {
      if (!producible.has(key)) {
        throw new HandlerConfigError(
          `EVENT_HANDLERS has key ${JSON.stringify(key)} but no registered event class has that key or one below it (known: ${known.join(', ') || 'none'}); register the event class or fix the key`,
        );
      }
      if (!Array.isArray(entries)) {
        throw new HandlerConfigError(`EVENT_HANDLERS[${JSON.stringify(key)}] must be an array`);
      }
      this.byKey.set(
        key,
        entries.map((entry, index) => {
          const resolved = resolveEntry(entry, `EVENT_HANDLERS[${JSON.stringify(key)}][${index}]`, defaults);
          const previous = namesSeen.get(resolved.name);
          if (previous !== undefined && previous !== resolved.handler) {
            throw new HandlerConfigError(
              `two different handlers are named ${JSON.stringify(resolved.name)}; handler names must be unique`,
            );
          }
          namesSeen.set(resolved.name, resolved.handler);
          return resolved;
        }),
      );
    }
    for (const [key, cls] of boundClassesOf(config)) {
      if (registry.has(key) && registry.get(key) !== cls) {
        throw new HandlerConfigError(
          `handlers().on(${cls.name}) lists handlers for ${JSON.stringify(key)}, but the bus registers ${registry.get(key).name} for that key; pass the same class to the bus's events`,
        );
      }
      // Every event under the key reaches the handler, typed by `cls`: each must be one.
      for (const below of known) {
        if (!prefixesOf(below).includes(key)) continue;
        const registered = registry.get(below);
        if (registered !== cls && !(registered.prototype instanceof cls)) {
          throw new HandlerConfigError(
            `handlers().on(${cls.name}) lists handlers for ${JSON.stringify(key)} and the keys below it, but the bus registers ${registered.name} (key ${JSON.stringify(below)}), which does not extend ${cls.name}, so those handlers would get events that are not ${cls.name}s; make ${registered.name} extend ${cls.name}, or give it a key outside ${JSON.stringify(key)}`,
          );
        }
      }
    }
    for (const key of known) {
      const names = this.plan(key).all.map((h) => h.name);
      const duplicate = names.find((name, i) => names.indexOf(name) !== i);
      if (duplicate !== undefined) {
        throw new HandlerConfigError(
          `handler ${JSON.stringify(duplicate)} is listed twice for events with key ${JSON.stringify(key)} (once on a parent key); an event runs each handler once`,
        );
      }
    }
  }

  /** The handlers for a handling key: those of `A`, then `A.B`, then `A.B.C`. */
  plan(handlingKey: string): HandlerPlan {
    let plan = this.plans.get(handlingKey);
    if (plan === undefined) {
      const all = prefixesOf(handlingKey).flatMap((prefix) => this.byKey.get(prefix) ?? []);
      plan = {
        all,
        sync: all.filter((h) => h.sync),
        async: all.filter((h) => !h.sync),
      };
      this.plans.set(handlingKey, plan);
    }
    return plan;
  }

  /**
   * Every run a handler can make: each registered event class's handling key
   * with each handler of its plan (what metrics label runs by).
   */
  runs(): { readonly handler: string; readonly key: string }[] {
    return this.keys.flatMap((key) => this.plan(key).all.map((h) => ({ handler: h.name, key })));
  }

  /** Every configured handler, once each, in configuration order. */
  all(): ResolvedHandler[] {
    const seen = new Map<string, ResolvedHandler>();
    for (const entries of this.byKey.values()) {
      for (const h of entries) if (!seen.has(h.name)) seen.set(h.name, h);
    }
    return [...seen.values()];
  }

  /** The handler named `name` in the plan of `handlingKey`, or {@link UnknownHandlerError}. */
  find(handlingKey: string, name: string): ResolvedHandler {
    const found = this.plan(handlingKey).all.find((h) => h.name === name);
    if (found === undefined) throw new UnknownHandlerError(name, handlingKey);
    return found;
  }
}

/** `A.B.C` → `['A', 'A.B', 'A.B.C']`. */
export function prefixesOf(key: string): string[] {
  const parts = key.split('.');
  return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
}

/** The options of an entry given as an object (`HandlerEntryOptions`). */
const ENTRY_OPTIONS: readonly string[] = [
  'handler',
  'sync',
  'attempts',
  'backoff',
  'timeoutMs',
  'idempotent',
] satisfies (keyof HandlerEntryOptions)[];

function resolveEntry(entry: HandlerEntry, where: string, defaults: HandlerDefaults): ResolvedHandler {
  let handler: unknown;
  let sync = false;
  let attempts: unknown = defaults.attempts;
  let backoff: unknown = defaults.backoff;
  let timeoutMs: unknown = defaults.timeoutMs;
  let idempotent: unknown;
  if (isHandler(entry)) {
    handler = entry;
  } else if (Array.isArray(entry)) {
    if (entry.length !== 2 || typeof entry[1] !== 'boolean') {
      throw new HandlerConfigError(`${where} must be [handler, sync: boolean], got ${describeValue(entry)}`);
    }
    [handler, sync] = entry as [unknown, boolean];
  } else if (typeof entry === 'object' && entry !== null && 'handler' in entry) {
    // A misspelt option (`atempts`) or a sync that is not a boolean (`'false'` is truthy) would run the handler
    // with settings other than the ones meant.
    const unknown = Object.keys(entry).filter((key) => !ENTRY_OPTIONS.includes(key));
    if (unknown.length > 0) {
      throw new HandlerConfigError(
        `${where} has no option ${unknown.map((key) => JSON.stringify(key)).join(', ')}: the options are ${ENTRY_OPTIONS.join(', ')}`,
      );
    }
    if (entry.sync !== undefined && typeof entry.sync !== 'boolean') {
      throw new HandlerConfigError(`${where}: sync must be true or false, got ${describeValue(entry.sync)}`);
    }
    handler = entry.handler;
    sync = entry.sync ?? false;
    attempts = entry.attempts ?? defaults.attempts;
    backoff = entry.backoff ?? defaults.backoff;
    timeoutMs = entry.timeoutMs ?? defaults.timeoutMs;
    idempotent = entry.idempotent;
  } else {
    handler = entry;
  }
  if (!isHandler(handler)) {
    throw new HandlerConfigError(
      `${where} is not a handler (got ${describeValue(handler)}); wrap functions with defineHandler('name', fn)`,
    );
  }
  // A handler defined idempotent reads ctx.uow as always set: every listing of it runs idempotently.
  if (handler.idempotent === true) {
    if (idempotent === false) {
      throw new HandlerConfigError(
        `${where} (${handler.name}): the handler was defined with { idempotent: true } (its ctx.uow is always set), so it cannot be listed with idempotent: false; drop the option, or define it without { idempotent: true }`,
      );
    }
    idempotent = true;
  }
  idempotent ??= false;
  if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 1) {
    throw new HandlerConfigError(`${where} (${handler.name}): attempts must be a positive integer`);
  }
  if (typeof idempotent !== 'boolean') {
    throw new HandlerConfigError(`${where} (${handler.name}): idempotent must be true or false`);
  }
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 0) {
    throw new HandlerConfigError(
      `${where} (${handler.name}): timeoutMs must be an integer >= 0 (0 = no limit), got ${String(timeoutMs)}`,
    );
  }
  if (timeoutMs > MAX_TIMER_MS) {
    throw new HandlerConfigError(
      `${where} (${handler.name}): timeoutMs must be at most ${MAX_TIMER_MS} (about 24.8 days, the longest a Node timer waits), got ${timeoutMs}`,
    );
  }
  const backoffIssue = backoffProblem(backoff);
  if (backoffIssue !== undefined) {
    throw new HandlerConfigError(
      `${where} (${handler.name}): backoff must be { type: 'fixed' | 'exponential', delayMs: integer >= 0, jitter?: 0..1 }: ${backoffIssue}`,
    );
  }
  // An entry's backoff without jitter takes the default's.
  const given = backoff as BackoffOptions;
  const resolvedBackoff = { ...given, jitter: given.jitter ?? defaults.backoff.jitter ?? 0 };
  return { handler, name: handler.name, sync, attempts, backoff: resolvedBackoff, timeoutMs, idempotent };
}
