/**
 * Typed handlers, checked by the compiler (`npm run typecheck` compiles this
 * file: each `@ts-expect-error` line must fail to compile) and at run time:
 * the builder refuses what the types cannot see.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createEventBus,
  defineHandler,
  Event,
  type EventHandlersConfig,
  EventType,
  type Handler,
  HandlerConfigError,
  type HandlerContext,
  handlers,
  type IdempotentHandler,
  type IdempotentHandlerContext,
  silentLogger,
  type UnitOfWork,
} from '../../src/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import {
  OrderEvent,
  OrderPaid,
  SHOP_EVENTS,
  ShopEvent,
  Undecorated,
  UserCreated,
} from '../helpers/shop-events.js';

const onPaid = defineHandler('orders.paid', async (event: OrderPaid) => {
  expectTypeOf(event.amount).toEqualTypeOf<number>();
});
const onOrder = defineHandler('orders.any', async (_event: OrderEvent) => {});
const onShop = defineHandler('shop.any', async (_event: ShopEvent) => {});
const onAny = defineHandler('events.any', async () => {});
const onUser = defineHandler('users.created', async (_event: UserCreated) => {});
const ledger = defineHandler(
  'orders.ledger',
  async (event: OrderPaid, ctx) => {
    expectTypeOf(ctx).toEqualTypeOf<IdempotentHandlerContext>();
    expectTypeOf(ctx.uow).toEqualTypeOf<UnitOfWork>(); // no `!` needed
    await ctx.uow.manager.query('SELECT 1');
    expectTypeOf(event).toEqualTypeOf<OrderPaid>();
  },
  { idempotent: true },
);

/** Builds the bus's handler table (no worker) and closes the bus. */
async function tableOf(
  config: EventHandlersConfig,
  events: Parameters<typeof createEventBus>[0]['events'] = SHOP_EVENTS,
): Promise<void> {
  const bus = createEventBus({
    events,
    handlers: config,
    logger: silentLogger,
    transport: sqliteTransport(),
  });
  await bus.close();
}

/** Listings the compiler refuses; the test only compiles them. */
function refused(): void {
  // @ts-expect-error a handler of OrderPaid listed for USER.CREATED
  handlers().on(UserCreated, onPaid);
  // @ts-expect-error and the other way round
  handlers().on(OrderPaid, onUser);
  // @ts-expect-error a handler of OrderPaid (which reads amount) listed for every order event
  handlers().on(OrderEvent, onPaid);
  // @ts-expect-error a key alone says nothing of its classes: the handler must take any Event
  handlers().on('SHOP', onShop);
  // @ts-expect-error an idempotent handler cannot be listed as not idempotent
  handlers().on(OrderPaid, ledger, { idempotent: false });
  // @ts-expect-error not a handler
  handlers().on(OrderPaid, async (_event: OrderPaid) => {});
}

describe('typed handlers: what compiles', () => {
  it('types a handler by its event class and an idempotent one with a unit of work', () => {
    expectTypeOf(onPaid).toEqualTypeOf<Handler<OrderPaid>>();
    expectTypeOf(ledger).toEqualTypeOf<IdempotentHandler<OrderPaid>>();
    expectTypeOf<HandlerContext['uow']>().toEqualTypeOf<UnitOfWork | undefined>();
    defineHandler('plain.ctx', async (_event: OrderPaid, ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<HandlerContext>();
      // @ts-expect-error a plain handler's ctx.uow may be undefined
      ctx.uow.manager;
    });
  });

  it('infers the event parameter from the class', () => {
    handlers().on(
      OrderPaid,
      defineHandler('orders.inferred', async (event) => {
        expectTypeOf(event).toEqualTypeOf<OrderPaid>();
      }),
    );
  });

  it('takes a handler of the class or of a base class; a prefix key takes handlers of Event', () => {
    const built = handlers()
      .on(OrderPaid, onPaid, { sync: true })
      .on(OrderPaid, onOrder)
      .on(OrderPaid, onShop)
      .on(OrderPaid, onAny)
      .on(OrderPaid, ledger, { sync: true, idempotent: true })
      .on(OrderEvent, onShop)
      .on('SHOP', onAny)
      .on<ShopEvent>('SHOP', onShop)
      .build();
    expectTypeOf(built).toEqualTypeOf<EventHandlersConfig>();
  });

  it('refuses a handler of another class, of a subclass for its base, or of a base on a bare key', () => {
    // Compiled, never run: each listing is refused by the compiler (and some would run).
    expectTypeOf(refused).toBeFunction();
  });

  it('keeps the map form, with idempotent handlers in every form but idempotent: false', () => {
    const map: EventHandlersConfig = {
      SHOP: [[onAny, true]],
      'SHOP.ORDER.PAID': [onPaid, [ledger, true], { handler: onOrder, idempotent: true }],
    };
    expect(Object.keys(map)).toEqual(['SHOP', 'SHOP.ORDER.PAID']);
    // @ts-expect-error an idempotent handler cannot be listed as not idempotent
    const wrong: EventHandlersConfig = { SHOP: [{ handler: ledger, idempotent: false }] };
    expect(wrong).toBeDefined();
  });
});

describe('typed handlers: what the builder refuses at run time', () => {
  it('builds the map form: keys in first-listed order, entries in on order, options kept', async () => {
    const built = handlers()
      .on(OrderPaid, onPaid, { sync: true, attempts: 2 })
      .on('SHOP', onAny)
      .on(OrderPaid, ledger)
      .build();
    expect(Object.keys(built)).toEqual(['SHOP.ORDER.PAID', 'SHOP']);
    expect(built['SHOP.ORDER.PAID']).toEqual([
      { handler: onPaid, sync: true, attempts: 2 },
      { handler: ledger },
    ]);
    expect(Object.isFrozen(built)).toBe(true);
    await tableOf(built);
  });

  it('refuses a class without @EventType, a class that is no event, and a bad key, at the on call', () => {
    const call = (target: unknown) => () => handlers().on(target as string, onAny);
    expect(call(Undecorated)).toThrow(HandlerConfigError);
    expect(call(Undecorated)).toThrow(
      "handlers().on(Undecorated): Undecorated has no handling key; decorate it with @EventType('TYPE.ACTION')",
    );
    expect(call(class Order {})).toThrow('handlers().on(Order): Order is not an event class');
    expect(call('SHOP..ORDER')).toThrow('handlers().on("SHOP..ORDER"): not a handling key');
    expect(call(42)).toThrow('handlers().on(...): expected an event class or a handling key, got number');
  });

  it('refuses a function or object that is not a handler, and options that are not an object', () => {
    const on = (handler: unknown, options?: unknown) => () =>
      handlers().on(OrderPaid, handler as Handler, options as object);
    expect(on(async function pay() {})).toThrow(
      "handlers().on(OrderPaid): expected a handler made by defineHandler('name', fn), got function pay",
    );
    expect(on({ name: 'fake', handle: () => {} })).toThrow(HandlerConfigError);
    expect(on(onPaid, true)).toThrow(
      'handlers().on(OrderPaid, orders.paid): options must be an object, got boolean',
    );
  });

  it('refuses, when the bus is built, a class the bus does not register for its key', async () => {
    const unregistered = handlers().on(UserCreated, onUser).build();
    await expect(tableOf(unregistered, [ShopEvent, OrderEvent, OrderPaid])).rejects.toThrow(
      'EVENT_HANDLERS has key "USER.CREATED" but no registered event class has that key',
    );
    // Another class with the same key: decorated alike, but not the class the bus knows.
    class OtherPaid extends OrderEvent {}
    const decorate = (cls: typeof OtherPaid) => Reflect.apply(EventType('SHOP.ORDER.PAID'), undefined, [cls]);
    decorate(OtherPaid);
    await expect(tableOf(handlers().on(OtherPaid, onOrder).build())).rejects.toThrow(
      'handlers().on(OtherPaid) lists handlers for "SHOP.ORDER.PAID", but the bus registers OrderPaid for that key',
    );
  });

  it('refuses, when the bus is built, a registered class under the bound key that does not extend the bound class', async () => {
    // Key SHOP.ORDER.REFUND is below SHOP.ORDER, but the class is no OrderEvent: onOrder would get it.
    @EventType('SHOP.ORDER.REFUND')
    class Refund extends ShopEvent {}
    const built = handlers().on(OrderEvent, onOrder).build();
    await expect(tableOf(built, [ShopEvent, OrderEvent, OrderPaid, Refund])).rejects.toThrow(
      'handlers().on(OrderEvent) lists handlers for "SHOP.ORDER" and the keys below it, but the bus registers Refund (key "SHOP.ORDER.REFUND"), which does not extend OrderEvent',
    );
    // Only a class below the bound key, the bound class itself not registered.
    @EventType('SHOP.ORDER.CREATE')
    class Unrelated extends Event {}
    await expect(tableOf(built, [Unrelated])).rejects.toThrow(HandlerConfigError);
    await expect(tableOf(built, [Unrelated])).rejects.toThrow('make Unrelated extend OrderEvent');
    // Subclasses under the key, and the key's class absent from the bus, are fine.
    await tableOf(built, [OrderPaid]);
    await tableOf(handlers().on(ShopEvent, onShop).build(), [OrderPaid, UserCreated]);
  });

  it('runs an idempotent-defined handler idempotently in every map form, and refuses idempotent: false', async () => {
    const bus = createEventBus({
      events: SHOP_EVENTS,
      handlers: { 'SHOP.ORDER.PAID': [ledger], SHOP: [[onAny, true]] },
      logger: silentLogger,
      transport: sqliteTransport(),
    });
    expect(bus.handlers.plan('SHOP.ORDER.PAID').all.map((h) => [h.name, h.idempotent])).toEqual([
      ['events.any', false],
      ['orders.ledger', true],
    ]);
    await bus.close();
    const bad = { SHOP: [{ handler: ledger, idempotent: false }] } as unknown as EventHandlersConfig;
    await expect(tableOf(bad)).rejects.toThrow(
      'EVENT_HANDLERS["SHOP"][0] (orders.ledger): the handler was defined with { idempotent: true }',
    );
    expect(() => defineHandler('x', async () => {}, { idempotent: 'yes' as unknown as true })).toThrow(
      'handler x: options.idempotent must be true or false',
    );
  });

  it('refuses an option defineHandler does not take, saying where an entry option goes', () => {
    const define = (options: unknown) =>
      defineHandler('x', async () => {}, options as Parameters<typeof defineHandler>[2]);
    expect(() => define({ timeoutMs: 100 })).toThrow(
      `handler x: unknown option "timeoutMs"; timeoutMs is an option of the handler's entry where it is listed: { handler, timeoutMs } in the handlers config`,
    );
    expect(() => define({ retries: 3 })).toThrow(
      'handler x: unknown option "retries"; the only option is idempotent',
    );
    expect(() => define('fast')).toThrow('handler x: options must be an object, got string');
    expect(defineHandler('y', async () => {}, {}).idempotent).toBe(false);
  });
});

describe('the published declarations of Handler', () => {
  it('keep its brand (tsconfig.build.json strips internal members), so a hand-made object does not compile', () => {
    const source = readFileSync(new URL('../../src/handlers/handler.ts', import.meta.url), 'utf8');
    const { outputText } = ts.transpileDeclaration(source, {
      fileName: 'handler.ts',
      compilerOptions: { stripInternal: true },
    });
    expect(outputText).toContain('declare const HANDLER: unique symbol;');
    const start = outputText.indexOf('export interface Handler<');
    const handlerDeclaration = outputText.slice(start, outputText.indexOf('\n}\n', start));
    expect(handlerDeclaration).toContain('readonly [HANDLER]: true;');
    // Not exported: only defineHandler can set it.
    expect(outputText).not.toMatch(/export (declare )?const HANDLER/);
  });
});
