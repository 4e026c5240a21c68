import type { DeadLetterKinds } from '../dead-letters/dead-letter-kinds.js';
import { registerEventKinds } from '../dead-letters/event-redriver.js';
import type { Event } from '../events/event.js';
import { registerHandlerKind } from '../handlers/handler-redriver.js';
import type { HandlerTable } from '../handlers/handler-table.js';
import type { BatchStore } from '../router/batch-store.js';
import { registerWebhookKind } from '../router/delivery/webhook-dead-letter.js';
import type { Publishing } from './publishing.js';
import type { Transport } from './transport.js';

/** What a bus's dead-letter kinds re-drive through. */
export interface BusKindsDeps {
  /** The bus's registry of kinds (`bus.deadLetters.kinds`). */
  readonly kinds: DeadLetterKinds;
  /** The bus's handlers, which a re-driven handler letter runs again. */
  readonly handlers: HandlerTable;
  /** Decodes a letter's payload. */
  readonly decode: (payload: string) => Event;
  /** Where re-driven handler jobs go, and whether a router can run on the transport. */
  readonly transport: Pick<Transport, 'jobs' | 'routerStores'>;
  /** The bus's one publishing path, for re-driven events. */
  readonly publishing: Publishing;
  /** The router's batches (`bus.router.batches`), opened only when a webhook letter is re-driven. */
  readonly batches: () => Pick<BatchStore, 'requeue'>;
}

/** Registers the kinds a bus re-drives: `handler`, `event` and `undecodable`, and `webhook` where a router can run. */
export function registerBusKinds(deps: BusKindsDeps): void {
  const { kinds, decode, publishing } = deps;
  registerHandlerKind(kinds, {
    table: deps.handlers,
    decode,
    enqueue: (jobs) => deps.transport.jobs.enqueue(jobs),
  });
  // A re-driven payload's id was accepted before: publish it past the dedupe window,
  // in the trace its envelope carried (no new producer span).
  registerEventKinds(kinds, decode, (events) =>
    publishing.publishEncoded(
      events.map((event) => ({
        id: event.id,
        payload: publishing.encoder.reencode(event).payload,
        skipDedupe: true,
      })),
      events,
    ),
  );
  // The router's kind, where a router can run: on a transport without its stores, no webhook letter can be.
  if (deps.transport.routerStores !== undefined) registerWebhookKind(kinds, deps.batches);
}
