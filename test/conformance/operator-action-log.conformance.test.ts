/**
 * The `OperatorActionLog` port's contract (src/support/operator-action-log.ts),
 * run against every adapter in ./adapters.ts through the log its transport
 * opens: an append stores every field with an id and the store's clock; a
 * list is newest first and pages by id; the newest `audit.maxEntries` are
 * kept; a bad page is refused with a code; buses are apart. (What operator
 * actions record, and `bus.audit`, is test/bus/operator-audit.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { NewOperatorAction } from '../../src/support/operator-action-log.js';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-audit');

function actionOf(target: string, fields: Partial<NewOperatorAction> = {}): NewOperatorAction {
  return {
    actor: 'ann@host-a',
    source: 'cli',
    action: 'dead-letters.redrive',
    target,
    count: 3,
    ...fields,
  };
}

describe.each(adaptersFor('audit'))('OperatorActionLog on $name', (adapter) => {
  it("stores every field with a new id and the store's clock", async () => {
    const audit = bed.open(adapter).transport.audit;
    const before = Date.now();
    const stored = await audit.append(
      actionOf('{"handler":"emails.send"}', { actor: 'bé <b@x>', source: 'dashboard', count: null }),
    );
    expect(stored).toEqual({
      ...actionOf('{"handler":"emails.send"}', { actor: 'bé <b@x>', source: 'dashboard', count: null }),
      id: expect.any(String),
      at: expect.any(Date),
    });
    expect(Math.abs(stored.at.getTime() - before)).toBeLessThan(5_000);
    expect(await audit.list()).toEqual([stored]);
    expect(await audit.count()).toBe(1);
  });

  it('stores an actor of up to 255 characters and a long target as given, control characters too', async () => {
    const audit = bed.open(adapter).transport.audit;
    const actor = `ops\nann\t\u001b[2J\u0007\u202e${'é'.repeat(241)}`;
    const target = `{"handler":"a\r\nb"}${'x'.repeat(10_000)}`;
    expect(actor).toHaveLength(255);
    const stored = await audit.append(actionOf(target, { actor }));
    expect(stored).toMatchObject({ actor, target });
    expect(await audit.list()).toEqual([stored]);
  });

  it('lists newest first, up to the limit, and pages on with before', async () => {
    const audit = bed.open(adapter).transport.audit;
    for (const target of ['a', 'b', 'c', 'd', 'e']) await audit.append(actionOf(target));
    expect((await audit.list()).map((a) => a.target)).toEqual(['e', 'd', 'c', 'b', 'a']);
    const first = await audit.list({ limit: 2 });
    expect(first.map((a) => a.target)).toEqual(['e', 'd']);
    const second = await audit.list({ limit: 2, before: first.at(-1)?.id });
    expect(second.map((a) => a.target)).toEqual(['c', 'b']);
    const last = await audit.list({ limit: 2, before: second.at(-1)?.id });
    expect(last.map((a) => a.target)).toEqual(['a']);
    expect(await audit.list({ before: last[0]?.id })).toEqual([]);
  });

  it('keeps the newest audit.maxEntries actions', async () => {
    const audit = bed.open(adapter, { audit: { maxEntries: 3 } }).transport.audit;
    for (const target of ['a', 'b', 'c', 'd', 'e']) await audit.append(actionOf(target));
    expect((await audit.list()).map((a) => a.target)).toEqual(['e', 'd', 'c']);
    expect(await audit.count()).toBe(3);
  });

  it('refuses a limit below 1 and a before that is no id, with a code', async () => {
    const audit = bed.open(adapter).transport.audit;
    await expect(audit.list({ limit: 0 })).rejects.toMatchObject({ code: 'COMMITBUS_OPERATOR_ACTION_QUERY' });
    await expect(audit.list({ limit: 1.5 })).rejects.toMatchObject({
      code: 'COMMITBUS_OPERATOR_ACTION_QUERY',
    });
    await expect(audit.list({ before: 'no id; DROP TABLE' })).rejects.toMatchObject({
      code: 'COMMITBUS_OPERATOR_ACTION_QUERY',
    });
  });

  it("keeps a bus's actions apart from another bus's", async () => {
    const first = bed.open(adapter).transport.audit;
    const second = bed.open(adapter).transport.audit;
    await first.append(actionOf('x'));
    expect(await second.list()).toEqual([]);
    expect(await second.count()).toBe(0);
    expect((await first.list()).map((a) => a.target)).toEqual(['x']);
  });
});
