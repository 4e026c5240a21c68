import type { Transport, TransportAdapter } from './transport.js';

/**
 * What a bus runs on: its transport's name (`redis`, `sql-postgres`, an
 * adapter's own), whether that keeps the bus's work in this process only
 * (then a worker elsewhere has nothing to take), and where its data lives.
 */
export interface RunsOn {
  readonly transport: string;
  readonly inProcess: boolean;
  /** Where its data lives, as the transport says it (`Transport.location`), when it does. */
  readonly location?: string;
}

/** The {@link RunsOn} of a bus on `transport`, opened from `adapter` when it was given one. */
export function runsOnOf(
  transport: Transport,
  adapter: Pick<TransportAdapter, 'inProcess'> | undefined,
): RunsOn {
  const location = transport.location?.();
  return Object.freeze({
    transport: transport.name,
    inProcess: (transport.inProcess ?? adapter?.inProcess) === true,
    ...(location === undefined ? {} : { location }),
  });
}
