import { Event, EventType } from '../../src/index.js';

/** An ordered event of the attack tests: events of one `lane` are handled one after another. */
@EventType('ATTACK.LANE', { orderBy: (e: LaneEvent) => `lane:${e.lane}` })
export class LaneEvent extends Event {
  lane!: string;
  recid!: string;
}

/** Event `n` of lane `lane`; `recid` names it (`<lane>-<n>`). */
export function laneEvent(lane: string, n: number): LaneEvent {
  return LaneEvent.create({ lane, recid: `${lane}-${n}` });
}
