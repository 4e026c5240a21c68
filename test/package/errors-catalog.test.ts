/**
 * Every error class a user can import, from the root and each subpath, is a
 * CommitbusError with a unique stable code and its class name as `name`, and
 * README's table of error codes lists each of them with its code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as routerEntry from '../../src/bus/router.js';
import * as dashboard from '../../src/dashboard/index.js';
import * as eventStore from '../../src/event-store/index.js';
import * as root from '../../src/index.js';
import { CommitbusError, isCommitbusError } from '../../src/index.js';
import * as testing from '../../src/testing/index.js';
import * as redis from '../../src/transports/redis/index.js';
import * as sql from '../../src/transports/sql/index.js';

const ENTRIES = {
  commitbus: root,
  'commitbus/redis': redis,
  'commitbus/sql': sql,
  'commitbus/router': routerEntry,
  'commitbus/event-store': eventStore,
  'commitbus/testing': testing,
  'commitbus/dashboard': dashboard,
};

type ErrorClass = new (...args: never[]) => Error;

// Arguments for the constructors that read theirs; the others get strings.
const ARGS: Record<string, unknown[]> = {
  DeadLetterRedriveError: [1, [{ id: 'd-1', error: 'no class' }]],
  UnknownDeadLetterKindError: ['d-1', 'audit', ['handler']],
  PublishAfterCommitError: [[{ id: 'e-1', key: 'RECORD.CREATE' }], 3],
  UnknownEventTypeError: ['RECORD.CREAT', ['RECORD.CREATE']],
  UnknownStoreEventTypeError: ['ITEM.ADD', ['ITEM.ADDED']],
  EventStoreHaltedError: [{ v: 3, type: 'ITEM.ADD', attempts: 1, error: undefined }],
  EventSkippedError: [{ v: 3, type: 'ITEM.ADD', status: 'skipped' }],
  EventRejectedError: ['out of stock'],
  MetricsServerError: ['127.0.0.1', 9464, new Error('listen EADDRINUSE')],
};

/** Every exported class whose instances are errors, once each, with the entry that exports it first. */
function exportedErrorClasses(): Map<ErrorClass, { name: string; entry: string }> {
  const found = new Map<ErrorClass, { name: string; entry: string }>();
  for (const [entry, module] of Object.entries(ENTRIES)) {
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || value === CommitbusError) continue;
      if (!(value.prototype instanceof Error) || found.has(value as ErrorClass)) continue;
      found.set(value as ErrorClass, { name, entry });
    }
  }
  return found;
}

function instanceOf(cls: ErrorClass, name: string): Error {
  const args = ARGS[name] ?? ['x', 'y', 'z', 'w'];
  return new (cls as unknown as new (...a: unknown[]) => Error)(...args);
}

const classes = exportedErrorClasses();

describe('every exported error class', () => {
  it('is found on the root and every subpath (the scan is not empty)', () => {
    const entries = new Set([...classes.values()].map((c) => c.entry));
    expect(classes.size).toBeGreaterThan(50);
    expect([...entries].sort()).toEqual(Object.keys(ENTRIES).sort());
  });

  for (const [cls, { name, entry }] of classes) {
    it(`${name} (${entry}) is a CommitbusError with a COMMITBUS_ code and its class name`, () => {
      const error = instanceOf(cls, name);
      expect(error).toBeInstanceOf(CommitbusError);
      expect(error).toBeInstanceOf(cls);
      expect(isCommitbusError(error)).toBe(true);
      expect(error.name).toBe(name);
      expect(cls.name).toBe(name);
      expect((error as CommitbusError).code).toMatch(/^COMMITBUS_[A-Z0-9_]+$/);
    });
  }

  it('has a code no other class has', () => {
    const byCode = new Map<string, string[]>();
    for (const [cls, { name }] of classes) {
      const code = (instanceOf(cls, name) as CommitbusError).code;
      byCode.set(code, [...(byCode.get(code) ?? []), name]);
    }
    const shared = [...byCode].filter(([, names]) => names.length > 1);
    expect(shared).toEqual([]);
  });

  it("is in README's table of error codes with its code, and the table lists nothing else", () => {
    const readme = readFileSync('README.md', 'utf8');
    const start = readme.indexOf('\n### Error codes');
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    const rows = [...section.matchAll(/^\| `(\w+)` \| `(COMMITBUS_\w+)`/gm)].map(
      ([, cls, code]) => `${cls} ${code}`,
    );
    const expected = [...classes].map(
      ([cls, { name }]) => `${name} ${(instanceOf(cls, name) as CommitbusError).code}`,
    );
    expect(rows.sort()).toEqual(expected.sort());
  });
});

describe('isCommitbusError', () => {
  it('knows a commitbus error from another copy of the package by its code, and nothing else', () => {
    const foreign = Object.assign(new Error('from another copy'), { code: 'COMMITBUS_CONFIG' });
    expect(isCommitbusError(foreign)).toBe(true);
    expect(isCommitbusError(Object.assign(new Error('pg'), { code: '23505' }))).toBe(false);
    expect(isCommitbusError(new TypeError('plain'))).toBe(false);
    expect(isCommitbusError({ code: 'COMMITBUS_CONFIG' })).toBe(false);
    expect(isCommitbusError(undefined)).toBe(false);
  });
});
