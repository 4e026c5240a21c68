import { transform } from 'esbuild';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type HasUnitOfWorks,
  UnitOfWork,
  UnitOfWorkDecoratorError,
  type UnitOfWorkManager,
  unitOfWork,
} from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, recordingBus } from '../helpers/outbox.js';
import { committedRecids, createRecord, RecordRow } from '../helpers/records.js';

// `@unitOfWork()` compiled without `experimentalDecorators`, as tsx and esbuild
// do by default: the method receives (method, context), standard (TC39)
// decorators, rather than (prototype, key, descriptor).
const SOURCE = `
export function defineService(unitOfWork, createRecord) {
  class RecordService {
    seen = [];
    constructor(unitOfWorks) { this.unitOfWorks = unitOfWorks; }
    @unitOfWork()
    async create(recid, uow) { this.seen.push(uow); return createRecord(uow, recid); }
  }
  return RecordService;
}
export function defineOnField(unitOfWork) {
  class Broken { @unitOfWork() handler = async (uow) => uow; }
  return Broken;
}
`;

interface StandardService {
  readonly seen: unknown[];
  create(recid: string, uow?: UnitOfWork): Promise<unknown>;
}
interface Compiled {
  defineService(
    decorator: typeof unitOfWork,
    create: typeof createRecord,
  ): new (
    uows: UnitOfWorkManager,
  ) => StandardService;
  defineOnField(decorator: typeof unitOfWork): unknown;
}

const buses = new Buses();
let ds: DataSource;
let compiled: Compiled;

beforeAll(async () => {
  ds = await openSqlite([RecordRow]);
  const { code } = await transform(SOURCE, {
    loader: 'ts',
    format: 'esm',
    target: 'es2022',
    tsconfigRaw: { compilerOptions: { experimentalDecorators: false } },
  });
  expect(code).not.toContain('__decorateClass'); // esbuild's helper for experimentalDecorators
  compiled = (await import(
    `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
  )) as Compiled;
});
afterEach(async () => {
  await buses.closeAll();
  await ds.getRepository(RecordRow).clear();
});
afterAll(() => ds.destroy());

describe('@unitOfWork() as a standard (TC39) decorator', () => {
  it('runs the method in a unit of work of its own, committed, its event sent', async () => {
    const { transport, uows } = recordingBus(buses, ds);
    const Service = compiled.defineService(unitOfWork, createRecord);
    const service = new Service(uows);
    await service.create('a');
    expect(service.seen).toHaveLength(1);
    expect(service.seen[0]).toBeInstanceOf(UnitOfWork);
    expect((service.seen[0] as UnitOfWork).isOpen).toBe(false);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a']);
    expect(await committedRecids(ds)).toEqual(['a']);
  });

  it('joins the unit of work passed in, or the one of the async context', async () => {
    const { transport, uows } = recordingBus(buses, ds);
    const service = new (compiled.defineService(unitOfWork, createRecord))(uows);
    await uows.run(async (uow) => {
      await service.create('a', uow);
      await service.create('b');
      expect(service.seen).toEqual([uow, uow]);
      expect(transport.batches).toEqual([]);
    });
    expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.CREATE:b']);
  });

  it('is typed for the standard form too (`npm run typecheck` compiles this)', () => {
    type Create = (this: HasUnitOfWorks, recid: string, uow?: UnitOfWork) => Promise<void>;
    const standard: (method: Create, context: ClassMethodDecoratorContext<HasUnitOfWorks, Create>) => Create =
      unitOfWork();
    expectTypeOf(standard).returns.toEqualTypeOf<Create>();
    expect(typeof standard).toBe('function');
  });

  it('on a field, fails as the class is defined with UnitOfWorkDecoratorError naming the member', () => {
    const defining = () => compiled.defineOnField(unitOfWork);
    expect(defining).toThrow(UnitOfWorkDecoratorError);
    expect(defining).toThrow(/^@unitOfWork\(\) on handler: not a method \(a field\)/);
  });
});

describe('@unitOfWork() given what it cannot wrap', () => {
  it('a property decorator call (no descriptor) is a UnitOfWorkDecoratorError, not a TypeError', () => {
    const decorate = unitOfWork() as (target: object, key: string, descriptor?: PropertyDescriptor) => void;
    const calling = () => decorate({ unitOfWorks: undefined }, 'handler', undefined);
    expect(calling).toThrow(UnitOfWorkDecoratorError);
    expect(calling).toThrow(/^@unitOfWork\(\) on handler: not a method/);
  });
});
