import { luaScripts } from './lua-scripts.js';

type Arg = string | number;

/** The router stores' steps, one atomic round trip each (see `scripts/router-*.lua` for KEYS/ARGV). */
export interface RouterScripts {
  /** `[1, subscribers]`, or `[0, owner]` when another client owns the topic. */
  routerIngest(...args: Arg[]): Promise<[number, number | string]>;
  /** How many batches became ready. */
  routerPromote(...args: Arg[]): Promise<number>;
  /** Per batch: id, subscriber, createdAt, attempts, health, lastError, has lastError, events. */
  routerTake(...args: Arg[]): Promise<[string, string, string, string, string, string, number, string[]][]>;
  /** 1 when settled, 0 when the worker no longer held the batch. */
  routerFinish(...args: Arg[]): Promise<number>;
  /** 1, or 0 when there is no such subscriber. */
  routerRequeue(...args: Arg[]): Promise<number>;
  /** How many batches were recovered. */
  routerRecover(...args: Arg[]): Promise<number>;
  /** Subscriber, events: per batch dropped. */
  routerDropOldest(...args: Arg[]): Promise<string[]>;
  /** Per subscriber: name, sent, queued, health, batches, oldest createdAt or '', lastError or '', its time or ''. */
  routerStats(...args: Arg[]): Promise<[string, string, string, string, number, string, string, string][]>;
  /** Batches due by a time. */
  routerCountDue(...args: Arg[]): Promise<number>;
  /** 1. */
  routerSaveSubscriber(...args: Arg[]): Promise<number>;
  /** 1, or 0 when there was no such subscriber. */
  routerRemoveSubscriber(...args: Arg[]): Promise<number>;
  /** What became of the subscription. */
  routerUnsubscribe(...args: Arg[]): Promise<'removed' | 'no-subscriber' | 'not-subscribed'>;
  /** 1, or 0 when there is no such subscriber. */
  routerSetPaused(...args: Arg[]): Promise<number>;
  /** 1, or 0 when there is no such subscriber. */
  routerAddSigningSecret(...args: Arg[]): Promise<number>;
  /** What became of the secrets. */
  routerRemoveSigningSecrets(...args: Arg[]): Promise<'removed' | 'none' | 'no-subscriber'>;
  /** 1, or 0 when there was no such topic. */
  routerRemoveTopic(...args: Arg[]): Promise<number>;
}

/** The scripts that change what a subscriber may send, and line it up again for `router-take.lua`. */
const LINE_UP = ['router-line-up'];

/** The scripts, defined once per connection. */
export const routerScripts = luaScripts<RouterScripts>({
  routerIngest: { file: 'router-ingest', keys: 8, includes: LINE_UP },
  routerPromote: { file: 'router-promote', keys: 3, includes: LINE_UP },
  routerTake: { file: 'router-take', keys: 3, includes: LINE_UP },
  routerFinish: { file: 'router-finish', keys: 5, includes: LINE_UP },
  routerRequeue: { file: 'router-requeue', keys: 7, includes: LINE_UP },
  routerRecover: { file: 'router-recover', keys: 4, includes: LINE_UP },
  routerDropOldest: { file: 'router-drop-oldest', keys: 4, includes: LINE_UP },
  routerStats: { file: 'router-stats', keys: 1 },
  routerCountDue: { file: 'router-count-due', keys: 2 },
  routerSaveSubscriber: { file: 'router-save-subscriber', keys: 5, includes: LINE_UP },
  routerRemoveSubscriber: { file: 'router-remove-subscriber', keys: 10 },
  routerUnsubscribe: { file: 'router-unsubscribe', keys: 3 },
  routerSetPaused: { file: 'router-set-paused', keys: 3, includes: LINE_UP },
  routerAddSigningSecret: { file: 'router-add-signing-secret', keys: 1 },
  routerRemoveSigningSecrets: { file: 'router-remove-signing-secrets', keys: 1 },
  routerRemoveTopic: { file: 'router-remove-topic', keys: 3 },
});
