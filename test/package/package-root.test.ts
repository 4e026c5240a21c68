/**
 * The package's public surface, pinned: the root exports what a service author
 * needs, the adapters and their stores are at `commitbus/redis`,
 * `commitbus/memory` and `commitbus/sql`, the test bus at `commitbus/testing`, the router's parts
 * (and `startRouter`) at `commitbus/router`, a bus's Prometheus metrics at
 * `commitbus/metrics`. Adding a name to the
 * root is a deliberate change: add it here and to README's API section.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as router from '../../src/bus/router.js';
import * as root from '../../src/index.js';
import * as metrics from '../../src/metrics/index.js';
import * as memory from '../../src/transports/memory/index.js';
import * as redis from '../../src/transports/redis/index.js';
import * as transports from '../../src/transports/select/index.js';
import * as sql from '../../src/transports/sql/index.js';

const ROOT_VALUES = [
  'BusClosedError',
  'COMMITBUS_ENTITIES',
  'COMMITBUS_MIGRATIONS',
  'COMMITBUS_TRACER_NAME',
  'CommitbusError',
  'ConfigError',
  'CorruptDeadLetterError',
  'DEFAULTS',
  'DEFAULT_CONFIG',
  'DataSourceMismatchError',
  'DeadLetterFilterError',
  'DeadLetterRedriveError',
  'DispatchOp',
  'DuplicateEventTypeError',
  'DuplicateScheduleError',
  'Event',
  'EventBus',
  'EventRejectedError',
  'EventSkippedError',
  'EventStore',
  'EventStoreHaltedError',
  'EventTooLargeError',
  'EventType',
  'HandlerConfigError',
  'HandlerCrashedError',
  'HandlerTimeoutError',
  'HandlersBuilder',
  'HistoryQueryError',
  'IdempotencyNotConfiguredError',
  'IdleTimeoutError',
  'InternalError',
  'InvalidDeliveryOptionsError',
  'InvalidEventFieldError',
  'InvalidEventIdError',
  'InvalidEventTypeOptionsError',
  'InvalidHandlingKeyError',
  'InvalidOrderKeyError',
  'MalformedEventError',
  'MalformedParkedWorkError',
  'MetricsServerError',
  'MissingEventTypeError',
  'NestedTransactionError',
  'NestedUnitOfWorkFailedError',
  'NoBusError',
  'NoDataSourceError',
  'NoWebhookRedriverError',
  'NonRetryableError',
  'NotAnEventError',
  'OperatorActionQueryError',
  'OrderingDisabledError',
  'OrderingNotConfiguredError',
  'OrderingPositionsMismatchError',
  'OrderingRebaseError',
  'OutboxNotConfiguredError',
  'PublishAfterCommitError',
  'RouterStoresUnsupportedError',
  'RuleTargetError',
  'ScheduleOptionsError',
  'SendEventOp',
  'SubscriptionHaltedError',
  'ThrownValueError',
  'TransactionAbortedError',
  'TransportUnavailableError',
  'UnitOfWork',
  'UnitOfWorkClosedError',
  'UnitOfWorkDecoratorError',
  'UnitOfWorkHooksError',
  'UnitOfWorkManager',
  'UnknownDeadLetterKindError',
  'UnknownEventTypeError',
  'UnknownHandlerError',
  'consoleLogger',
  'createEventBus',
  'createEventStore',
  'currentUnitOfWork',
  'defineHandler',
  'defineModel',
  'handlers',
  'isCommitbusError',
  'loadConfigFromEnv',
  'loadRouterOptionsFromEnv',
  'silentLogger',
  'topicRoute',
  'unitOfWork',
  'withUnitOfWork',
];

const ROOT_TYPES = [
  'AfterFailure',
  'AfterLastAttempt',
  'AttemptFailure',
  'AuditOptions',
  'BackoffOptions',
  'BusObserver',
  'BusStatus',
  'CommitbusOptions',
  'ConcreteEventClass',
  'CronSchedule',
  'DeadLetter',
  'DeadLetterFilter',
  'DeadLetterKind',
  'DeadLetterKinds',
  'DeadLetterOptions',
  'DeadLetterOrder',
  'DeadLetterReason',
  'DeadLetterRedriver',
  'DeadLetterTarget',
  'DeadLetters',
  'DefineHandlerOptions',
  'DeliveryOptions',
  'DispatchOptions',
  'DrainOptions',
  'DrainResult',
  'DrainStopReason',
  'EventBusOptions',
  'EventContext',
  'EventHandlersConfig',
  'EventModel',
  'EventOrdering',
  'EventProps',
  'EventStoreOptions',
  'EventTypeOptions',
  'EverySchedule',
  'FailedRun',
  'FailureListener',
  'FlatCommitbusOptions',
  'HaltedKey',
  'HandledRun',
  'Handler',
  'HandlerContext',
  'HandlerEntry',
  'HandlerEntryOptions',
  'HandlerFn',
  'HandlerOptions',
  'HandlerRunOptions',
  'HasUnitOfWorks',
  'HistoryEvent',
  'HistoryOptions',
  'HistoryPoint',
  'HistoryQuery',
  'IdempotencyOptions',
  'IdempotentHandler',
  'IdempotentHandlerContext',
  'Logger',
  'MetricsAddress',
  'MetricsRegistry',
  'MetricsServerOptions',
  'Operation',
  'OperatorAction',
  'OperatorActionQuery',
  'OperatorAudit',
  'OperatorOrigin',
  'OperatorSource',
  'OrderedKeys',
  'OrderingMode',
  'OrderingOptions',
  'OrderingPolicy',
  'OutboxOptions',
  'ParkedRun',
  'PublishingOptions',
  'RebasedKey',
  'RebasedKeys',
  'RedisClusterNode',
  'RedisOptions',
  'RedriveFailure',
  'ReduceContext',
  'Reducer',
  'ReducerResult',
  'ResolvedCommitbusOptions',
  'RouterOptions',
  'RouterRole',
  'RouterStores',
  'RuleKind',
  'RuleTarget',
  'RunningWorker',
  'ScheduleHandle',
  'ScheduleTick',
  'ScheduleWhen',
  'ScheduledEventFactory',
  'ScheduledRetry',
  'SchedulingOptions',
  'SchedulingRule',
  'SchedulingRules',
  'StartWorkerOptions',
  'StoreEvent',
  'StoreFailure',
  'Subscription',
  'SubscriptionContext',
  'SubscriptionHandler',
  'SubscriptionOptions',
  'SubscriptionStatus',
  'TopicMessage',
  'TopicRouteOptions',
  'TransportAdapter',
  'TransportContext',
  'TransportSettings',
  'UnitOfWorkBus',
  'UnitOfWorkDecoratorOptions',
  'UnitOfWorkMethodDecorator',
  'UnitOfWorkOptions',
  'WorkersOptions',
];

/**
 * Every name a module exports, values and types, read from its source: its
 * `export ... from` lists, following `export *` (the shape of every index.ts).
 */
function exportedNames(file: string): { values: string[]; types: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const values: string[] = [];
  const types: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const from = (statement.moduleSpecifier as ts.StringLiteral | undefined)?.text;
    if (statement.exportClause === undefined && from !== undefined) {
      const inner = exportedNames(join(dirname(file), from.replace(/\.js$/, '.ts')));
      values.push(...inner.values);
      types.push(...inner.types);
    } else if (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
      for (const specifier of statement.exportClause.elements) {
        (statement.isTypeOnly || specifier.isTypeOnly ? types : values).push(specifier.name.text);
      }
    }
  }
  return { values: values.sort(), types: types.sort() };
}

describe('the package root', () => {
  it(`exports ${ROOT_VALUES.length} values and ${ROOT_TYPES.length} types, no adapter or internal`, () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_VALUES);
    expect(exportedNames('src/index.ts')).toEqual({ values: ROOT_VALUES, types: ROOT_TYPES });
    expect(ROOT_VALUES.length + ROOT_TYPES.length).toBe(198);
  });

  it('lists every one of its names in the README API section', () => {
    const readme = readFileSync('README.md', 'utf8');
    const api = readme.slice(
      readme.indexOf('\n## API'),
      readme.indexOf('\n## ', readme.indexOf('\n## API') + 1),
    );
    const missing = [...ROOT_VALUES, ...ROOT_TYPES].filter((name) => !api.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});

describe('the subpath exports', () => {
  it('commitbus/redis carries the adapter and its stores, commitbus/memory its deprecated alias', () => {
    expect(Object.keys(redis).sort()).toEqual([
      'BullmqTransport',
      'HandlerJobQueues',
      'RedisBatchStore',
      'RedisDeadLetterStore',
      'RedisOrderingStore',
      'RedisRouterCatalog',
      'RedisSchedulingRuleStore',
      'RedisStreamEventLog',
      'RedisTokenStore',
      'UnexpectedRedisReplyError',
      'queueNames',
      'queueNamesOf',
      'redisRouterStores',
      'redisTransport',
      'routerKeys',
    ]);
    // The deprecated alias of sqliteTransport() alone.
    expect(Object.keys(memory).sort()).toEqual(['memoryTransport']);
    expect(Object.keys(transports)).toEqual(['transportFromEnv']);
  });

  it('commitbus/sql carries the SQL adapter, its options, its stores and its coded errors', () => {
    expect(Object.keys(sql).sort()).toEqual([
      'SqlDataSourceNotInitializedError',
      'SqlDb',
      'SqlDeadLetterStore',
      'SqlDialectUnsupportedError',
      'SqlEventLog',
      'SqlHandlerJobQueue',
      'SqlOrderingStore',
      'SqlSchedulingRuleStore',
      'SqlTransport',
      'SqlWorkerStartedError',
      'SqliteDriverMissingError',
      'SqliteOpenFailedError',
      'SqliteTransportClosedError',
      'sqlTransport',
      'sqliteTransport',
    ]);
    expect(exportedNames('src/transports/sql/index.ts').types).toEqual([
      'SqlDialect',
      'SqlRunner',
      'SqlTransportOptions',
      'SqliteTransportOptions',
    ]);
  });

  it('commitbus/metrics carries the metrics and commitbus/router runs a router, off the root', () => {
    expect(Object.keys(metrics).sort()).toEqual(['BusMetrics', 'MetricsServerError', 'createBusMetrics']);
    expect(exportedNames('src/metrics/index.ts').types).toEqual([
      'BusMetricsOptions',
      'MetricsAddress',
      'MetricsEventStore',
      'MetricsEventStoreStatus',
      'MetricsRegistry',
      'MetricsServerOptions',
      'MetricsSource',
      'MetricsStatus',
    ]);
    expect(Object.keys(router)).toEqual(expect.arrayContaining(['startRouter']));
    expect(exportedNames('src/bus/router.ts').types).toEqual(
      expect.arrayContaining(['RunningRouter', 'StartRouterDeps']),
    );
  });

  it('are mapped in package.json to the built index of each', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, { types: string; import: string; default: string } | string>;
    };
    // `./package.json` maps to itself, so tools can read the version.
    expect(pkg.exports['./package.json']).toBe('./package.json');
    const entries = Object.entries(pkg.exports).flatMap(([path, target]) =>
      typeof target === 'string' ? [] : [[path, target] as const],
    );
    const sources = Object.fromEntries(
      entries.map(([path, target]) => [
        path,
        target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
      ]),
    );
    expect(sources).toEqual({
      '.': 'src/index.ts',
      './event-store': 'src/event-store/index.ts',
      './testing': 'src/testing/index.ts',
      './redis': 'src/transports/redis/index.ts',
      './memory': 'src/transports/memory/index.ts',
      './sql': 'src/transports/sql/index.ts',
      './transports': 'src/transports/select/index.ts',
      './router': 'src/bus/router.ts',
      './metrics': 'src/metrics/index.ts',
      './dashboard': 'src/dashboard/index.ts',
    });
    for (const [path, target] of entries) {
      expect(target.types, path).toBe(target.import.replace(/\.js$/, '.d.ts'));
      // The same ES module for require() (Node >= 20.19 loads ES modules through it).
      expect(target.default, path).toBe(target.import);
    }
  });
});
