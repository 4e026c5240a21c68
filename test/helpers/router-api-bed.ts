import { Counter, Registry } from 'prom-client';
import type { Agent } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Batch } from '../../src/router/batch.js';
import { createRouterApi, type RouterApi } from '../../src/router/http/router-api.js';
import type { AnsweredRequest } from '../../src/router/http/router-api-deps.js';
import { type HeldCall, holdable } from './hold-gate.js';
import { type RecordingLogger, recordingLogger } from './recording-logger.js';
import { type Answer, RoutemasterClient } from './routemaster-client.js';
import { describeOnEachStores, type RouterStores } from './router-stores.js';
import { testCertificate, trustingAgent } from './tls.js';

/** The root key of the test routers. */
export const ROOT_KEY = 'root-key-for-the-router-api-test';

/** An acceptable entity or callback URL. */
export const HTTPS_URL = 'https://example.com/widgets/1';

/** Expects an error answer: `status`, and a JSON body `{error: code, message}`. */
export function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, error: (answer.json as { error?: string } | undefined)?.error }).toEqual({
    status,
    error: code,
  });
  expect((answer.json as { message: unknown }).message).toEqual(expect.any(String));
}

/** A router API listening over HTTPS on 127.0.0.1, on fresh stores, with what it logged and answered. */
export interface RouterApiBed {
  readonly stores: RouterStores;
  readonly api: RouterApi;
  /** A client with the root key. */
  readonly root: RoutemasterClient;
  /** A client sending no credentials. */
  readonly anonymous: RoutemasterClient;
  /** What the API logged. */
  readonly logger: RecordingLogger;
  /** Every answered request, as the metrics hook saw it. */
  readonly answered: AnsweredRequest[];
  /** The registry served at /metrics (with `router_events_published_total` fed by `onPublished`). */
  readonly registry: Registry;
  /** Makes `ping` (GET /pulse) fail or work again. */
  setStoresUp(up: boolean): void;
  /** A new client with a generated token. */
  newClient(name: string): Promise<RoutemasterClient>;
  /**
   * Holds the API's next write to the subscribers (save, pause, secrets)
   * until released, so another request can run whole in between.
   */
  holdNextSubscriberWrite(): HeldCall;
  /** Every ready batch, taken (and left pending). */
  takeAll(): Promise<Batch[]>;
  /** Stops the server and its client (the stores stay: their adapter closes them). */
  close(): Promise<void>;
}

/** Starts a router API over HTTPS (a self-signed certificate) on `stores` (fresh ones). */
export async function startRouterApiBed(stores: RouterStores): Promise<RouterApiBed> {
  const certificate = await testCertificate();
  const logger = recordingLogger();
  const answered: AnsweredRequest[] = [];
  const registry = new Registry();
  const published = new Counter({
    name: 'router_events_published_total',
    help: 'events published',
    labelNames: ['topic'],
    registers: [registry],
  });
  let storesUp = true;
  const subscribers = holdable(stores.subscribers, [
    'saveSubscriber',
    'setPaused',
    'addSigningSecret',
    'removeSigningSecrets',
  ]);
  const api = createRouterApi(
    {
      ...stores,
      subscribers: subscribers.target,
      logger,
      metrics: registry,
      ping: async () => {
        if (!storesUp) throw new Error('stores are down');
        return stores.batches.memoryUsed();
      },
      onPublished: (topic, count) => published.inc({ topic }, count),
      onRequest: (request) => answered.push(request),
    },
    { rootKey: ROOT_KEY, tls: certificate, bodyLimit: 200_000 },
  );
  const baseUrl = await api.listen();
  expect(baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const agent: Agent = trustingAgent(certificate);
  const root = new RoutemasterClient(baseUrl, ROOT_KEY, agent);
  return {
    stores,
    api,
    root,
    anonymous: root.as(undefined),
    logger,
    answered,
    registry,
    setStoresUp: (up) => {
      storesUp = up;
    },
    holdNextSubscriberWrite: () => subscribers.holdNext(),
    async newClient(name) {
      const added = await root.addToken(name);
      expect(added.status).toBe(201);
      return root.as((added.json as { token: string }).token);
    },
    takeAll: () =>
      stores.batches.take({
        worker: 'api-test',
        limit: 100,
        now: Date.now(),
        leaseMs: 60_000,
        maxInFlightPerSubscriber: 100,
      }),
    async close() {
      await api.close();
      await agent.close();
    },
  };
}

/**
 * Declares `suite` once per store adapter, on a {@link RouterApiBed} started
 * before its tests and closed after them: `bed`'s fields are there once the
 * tests run.
 */
export function describeRouterApi(name: string, title: string, suite: (bed: RouterApiBed) => void): void {
  describeOnEachStores(name, title, (open) => {
    const bed = {} as RouterApiBed;
    let started: RouterApiBed | undefined;
    beforeAll(async () => {
      started = await startRouterApiBed(open());
      Object.assign(bed, started);
    });
    afterAll(() => started?.close());
    suite(bed);
  });
}
