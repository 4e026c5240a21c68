import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { closeBusModule } from '../../src/cli/bus-module.js';
import { COMMITBUS_ENTITIES, createEventBus, createEventStore, silentLogger } from '../../src/index.js';
import { RecordEvent } from '../helpers/events.js';

// `commitbus worker` closes what the module opened on SIGTERM. The event
// store's writer and listeners publish through the bus, so a batch that
// finishes while the store closes must still find the bus open.
describe('closeBusModule', () => {
  it('closes the event store while the bus is still open, then the bus, then the DataSource', async () => {
    const dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize();
    const bus = createEventBus({ events: [RecordEvent], logger: silentLogger });
    const eventStore = createEventStore({ dataSource, models: [], logger: silentLogger });
    const published: string[] = [];
    const dataSourceOpen: boolean[] = [];
    // A batch finishing as the store closes: it publishes, and needs its DataSource.
    const close = eventStore.close.bind(eventStore);
    eventStore.close = async () => {
      dataSourceOpen.push(dataSource.isInitialized);
      await bus.publish(Object.assign(new RecordEvent(), { recid: 'at-close' }));
      published.push('at-close');
      await close();
    };

    await closeBusModule({ bus, eventStore, dataSource });

    expect(published).toEqual(['at-close']);
    expect(dataSourceOpen).toEqual([true]);
    await expect(bus.publish(new RecordEvent())).rejects.toMatchObject({ code: 'COMMITBUS_BUS_CLOSED' });
    expect(dataSource.isInitialized).toBe(false);
  });
});
