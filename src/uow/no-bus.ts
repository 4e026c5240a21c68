import { NoBusError } from './errors/no-bus.error.js';
import type { UnitOfWorkBus } from './unit-of-work-bus.js';

/**
 * The bus of units of work managed without one (only database work and
 * operations such as the event store's `DispatchOp`): registering a bus
 * event throws {@link NoBusError}.
 */
export const NO_BUS: UnitOfWorkBus = {
  dataSource: undefined,
  useDataSource: () => undefined,
  openEvents: () => ({
    add() {
      throw new NoBusError();
    },
    list: () => [],
    beforeCommit: async () => {},
    flush: async () => {},
  }),
};
