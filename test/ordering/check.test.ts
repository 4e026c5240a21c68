/**
 * The checks of the ordering chaos test (`checkOrdering`) on made-up runs:
 * the sequences a correct bus produces pass, and each way ordering can break
 * is reported.
 */
import { describe, expect, it } from 'vitest';
import type { OrdRun } from '../fixtures/ordering-app.js';
import { checkOrdering, type OrderingData } from '../helpers/ordering-report.js';

type Run = Omit<OrdRun, 'id' | 'pid' | 'key' | 'eventId'>;

/** One item `k` with `n` committed versions, seq 10, 20, 30, …, and these runs per handler. */
function item(n: number, runs: { once?: Run[]; plain?: Run[]; async?: Run[] } = {}): OrderingData {
  const inOrder = Array.from({ length: n }, (_, i) => place(i + 1));
  const rows = (list: Run[]) =>
    list.map((r, i) => ({ ...r, id: i + 1, pid: 1, key: 'k', eventId: `e${r.version}` }));
  return {
    items: [{ key: 'k', version: n }],
    commits: inOrder.map((r) => ({ key: 'k', version: r.version, eventId: `e${r.version}` })),
    rolledBack: 0,
    runs: new Map([
      ['ord.sync-once', rows(runs.once ?? inOrder)],
      ['ord.sync-plain', rows(runs.plain ?? inOrder)],
      ['ord.async', rows(runs.async ?? inOrder)],
    ]),
  };
}

/** Version `v` as a correct bus hands it out: seq 10v, prev the seq before. */
function place(version: number): Run {
  return { version, seq: version * 10, prev: version === 1 ? null : (version - 1) * 10 };
}

describe('checkOrdering', () => {
  it('passes the committed sequence, and repeats of the event a killed worker was on', () => {
    const plain = [place(1), place(2), place(2), place(3)];
    const report = checkOrdering(item(3, { plain, async: [place(1), place(1), place(2), place(3)] }));
    expect(report.problems).toEqual([]);
    expect(report.handlers.map((h) => h.repeats)).toEqual([0, 1, 1]);
  });

  it('reports events handled out of order, missing, or twice by the idempotent handler', () => {
    expect(checkOrdering(item(3, { plain: [place(1), place(3), place(2)] })).problems).toContainEqual(
      expect.stringContaining('k ord.sync-plain: handled (consecutive repeats collapsed) [1, 3, 2]'),
    );
    expect(checkOrdering(item(3, { async: [place(1), place(2), place(1), place(3)] })).problemCount).toBe(1);
    expect(checkOrdering(item(3, { async: [place(1), place(3)] })).problems).toEqual([
      'k ord.async: handled (consecutive repeats collapsed) [1, 3] (#2 is 3, expected 2; 2 in all, expected 1..3)',
    ]);
    expect(checkOrdering(item(2, { once: [place(1), place(1), place(2)] })).problemCount).toBe(1);
  });

  it('reports a broken seq/prev chain, and a redelivery or another handler seeing other ones', () => {
    const badPrev = [place(1), { ...place(2), prev: 5 }];
    expect(checkOrdering(item(2, { once: badPrev, plain: badPrev, async: badPrev })).problems).toHaveLength(
      3,
    );
    const reseq = [place(1), place(2), { ...place(2), seq: 99 }];
    expect(checkOrdering(item(2, { plain: reseq })).problems).toEqual([
      'k ord.sync-plain: version 2 ran again as seq 99 prev 10, first as seq 20 prev 10',
    ]);
    const other = [place(1), { version: 2, seq: 25, prev: 10 }];
    expect(checkOrdering(item(2, { async: other })).problems).toEqual([
      'k ord.async: version 2 has seq 25 prev 10, ord.sync-once saw seq 20 prev 10',
    ]);
  });

  it('reports a run of an event that did not commit as that version', () => {
    const data = item(1);
    const runs = data.runs.get('ord.sync-plain') as OrdRun[];
    runs[0] = { ...runs[0]!, eventId: 'rolled-back' };
    expect(checkOrdering(data).problems).toEqual([
      'k ord.sync-plain: ran event rolled-back as version 1, which committed as e1',
    ]);
  });
});
