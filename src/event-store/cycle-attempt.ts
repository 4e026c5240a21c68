import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';

/** One run of the cycle over one event; abandoned once one of its steps timed out. */
export interface CycleAttempt {
  abandoned: boolean;
}

/**
 * The attempt the running code belongs to. It follows a callback's async
 * work, so a step that times out and carries on later is still known as
 * part of its abandoned attempt.
 */
export const cycleAttempt = new AsyncLocalStorage<CycleAttempt>();

/** Marks the running attempt abandoned: none of its code may reach the database any more. */
export function abandonAttempt(): void {
  const attempt = cycleAttempt.getStore();
  if (attempt !== undefined) attempt.abandoned = true;
}

const guarded = new WeakSet<QueryRunner>();

/**
 * Makes `runner` refuse every statement of an abandoned attempt: a callback
 * that settles after its step timed out must not write into a later event's
 * transaction (on SQLite the writer goes on with the same connection).
 */
export function refuseAbandoned(runner: QueryRunner): void {
  // Once per runner: SQLite hands the writer the same one after every step back.
  if (guarded.has(runner)) return;
  guarded.add(runner);
  const original = runner.query;
  runner.query = ((...args: Parameters<QueryRunner['query']>) => {
    if (cycleAttempt.getStore()?.abandoned === true) {
      return Promise.reject(
        new EventStoreUsageError(
          'a statement from a step that timed out (stepTimeoutMs) was refused: its event was rolled back, and this code no longer belongs to any transaction',
        ),
      );
    }
    return original.apply(runner, args);
  }) as QueryRunner['query'];
}
