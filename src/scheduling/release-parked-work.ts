import type { RuleSnapshot } from './rule-snapshot.js';
import type { SchedulingRuleStore } from './scheduling-rule-store.js';

/**
 * Enqueues again the parked work that `rules` let run, per handler in the
 * order it was parked. Work still paused or blocked (say by a key rule) keeps
 * the work parked after it waiting, so order is never broken; a block never
 * drops work that was parked. Resolves to how many items were released.
 */
export async function releaseParkedWork(store: SchedulingRuleStore, rules: RuleSnapshot): Promise<number> {
  let released = 0;
  for (const handler of await store.parkedHandlers()) {
    if (rules.handlerVerdict(handler) !== 'run') continue;
    released += await store.unpark(handler, (work) => rules.verdict(handler, work.handlingKey) === 'run');
  }
  return released;
}
