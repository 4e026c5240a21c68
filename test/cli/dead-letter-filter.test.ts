/**
 * The dead-letter commands' flags as the CLI reads them: kinds and reasons
 * no letter can have, contradictory flags, a handler no one knows, and the
 * "N of M" listing (oldest or newest first), on the embedded SQLite store.
 */
import { describe, expect, it } from 'vitest';
import { target } from '../../src/cli/dead-letter-batch-commands.js';
import { checkHandlerFilter, deadLetterFilter } from '../../src/cli/dead-letter-filter.js';
import { countDeadLetters, listDeadLetters } from '../../src/cli/dead-letter-pages.js';
import { listFooter } from '../../src/cli/output.js';
import { letter, pageLetters } from '../conformance/dead-letter-store/letters.js';
import { embeddedTransport } from '../helpers/embedded.js';

describe('deadLetterFilter', () => {
  it('refuses a reason or kind no letter can have, naming the ones there are', () => {
    expect(() => deadLetterFilter({ reason: 'exhaustd' })).toThrow(
      /--reason must be one of exhausted, timeout, .*skipped-by-rebase, got "exhaustd"/,
    );
    expect(() => deadLetterFilter({ kind: 'handlers' })).toThrow(
      /--kind must be one of handler, undecodable/,
    );
    expect(deadLetterFilter({ reason: 'crashed', kind: 'webhook' })).toEqual({
      reason: 'crashed',
      kind: 'webhook',
    });
  });

  it('refuses a --since not before --until', () => {
    expect(() => deadLetterFilter({ since: '2026-12-02T00:00:00Z', until: '2026-12-01T00:00:00Z' })).toThrow(
      /--since must be before --until/,
    );
  });
});

describe('target', () => {
  it('refuses --all with filters, and an id with either', () => {
    expect(() => target(undefined, { all: true, handler: 'x' }, 'redrive')).toThrow(
      /redrive --all takes every letter: drop --all .*\(--handler\)/,
    );
    expect(() => target('a.b', { all: true }, 'purge')).toThrow(/id or filters \(or --all\), not both/);
    expect(() => target(undefined, {}, 'purge')).toThrow(/needs a letter id, filters/);
    expect(target(undefined, { all: true }, 'purge')).toMatchObject({ all: true, filter: {} });
  });
});

describe('checkHandlerFilter', () => {
  it('refuses a handler neither the table nor any letter names; takes one only letters name', async () => {
    const store = embeddedTransport().deadLetters;
    await store.add([letter('e1.retired', Date.parse('2026-12-01T00:00:00Z'))]);
    await expect(checkHandlerFilter({ handler: 'anounce' }, ['announce', 'mail'], store)).rejects.toThrow(
      /--handler "anounce": no handler has that name and no dead letter names it \(handlers: announce, mail\)/,
    );
    await expect(checkHandlerFilter({ handler: 'announce' }, ['announce'], store)).resolves.toBeUndefined();
    await expect(checkHandlerFilter({ handler: 'retired' }, ['announce'], store)).resolves.toBeUndefined();
  });
});

describe('listDeadLetters', () => {
  it('shows a page oldest or newest first, and counts every matching letter', async () => {
    const store = embeddedTransport().deadLetters;
    const all = pageLetters();
    await store.add(all);
    const oldest = await listDeadLetters(store, { handler: 'keep' }, 3, false);
    expect(oldest.total).toBe(434);
    expect(oldest.letters.map((l) => l.deadAt.getTime())).toEqual(
      [...oldest.letters].map((l) => l.deadAt.getTime()).sort((a, b) => a - b),
    );
    const newest = await listDeadLetters(store, { handler: 'keep', limit: 2 }, 2, true);
    expect(newest.total).toBe(434);
    const last = all
      .filter((l) => l.handler === 'keep')
      .slice(-2)
      .reverse();
    expect(newest.letters.map((l) => l.id)).toEqual(last.map((l) => l.id));
    const few = await listDeadLetters(store, { handler: 'keep' }, 1_000, false);
    expect(few).toMatchObject({ total: 434 });
    expect(few.letters).toHaveLength(434);
    expect(await countDeadLetters(store, {})).toBe(1_300);
  });
});

describe('listFooter', () => {
  it('says how many of how many, in which order, and how to see the others', () => {
    expect(listFooter(100, 10_000, 'dead letter(s)', false)).toBe(
      '100 of 10,000 dead letter(s) (oldest first; --limit or --newest-first for others)',
    );
    expect(listFooter(3, 3, 'dead letter(s)', true)).toBe('3 of 3 dead letter(s) (newest first)');
    expect(listFooter(1, 2, 'halted lane(s)', true)).toBe(
      '1 of 2 halted lane(s) (newest first; --limit for others)',
    );
  });
});
