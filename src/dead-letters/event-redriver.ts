import type { Event } from '../events/event.js';
import type { DeadLetterKinds, DeadLetterRedriver } from './dead-letter-kinds.js';

/**
 * The `event` and `undecodable` kinds, registered on `kinds`: a letter's
 * payload is decoded (with `decode`, as a worker would; one that still cannot
 * be decoded stays) and published again as an event, the letters of both
 * kinds in one `publish`.
 */
export function registerEventKinds(
  kinds: DeadLetterKinds,
  decode: (payload: string) => Event,
  publish: (events: readonly Event[]) => Promise<void>,
): void {
  const redriver: DeadLetterRedriver<Event> = {
    prepare: (letter) => decode(letter.payload),
    run: (events) => publish(events),
  };
  kinds.register('undecodable', redriver);
  kinds.register('event', redriver);
}
