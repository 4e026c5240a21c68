import { CommitbusError } from '../../support/commitbus-error.js';
import { parseLane } from '../lane.js';

/**
 * Who numbers the events of an order key's lane: the publisher, from the
 * outbox's `commitbus_order_keys` table (`'outbox'`), or the transport, when
 * the publishing process has no outbox (`'transport'`).
 */
export type LaneNumbering = 'outbox' | 'transport';

/**
 * An ordered event was refused because its process numbers the key's events
 * one way and the key's lane already holds events numbered the other way (one
 * process of the bus has an outbox, another has none). Accepting it would drop
 * it, or a later event, as a duplicate position. Nothing of the publish was
 * kept; what the lane had stays.
 */
export class OrderingPositionsMismatchError extends CommitbusError {
  /** Stable code for callers that catch it. */
  readonly code = 'COMMITBUS_ORDERING_POSITIONS_MISMATCH';
  /** The order key whose event was refused. */
  readonly orderKey: string;

  /**
   * @param lane - the key's sync lane.
   * @param laneNumbering - how the lane's events are numbered.
   */
  constructor(lane: string, laneNumbering: LaneNumbering) {
    const { key } = parseLane(lane);
    const refused = laneNumbering === 'outbox' ? 'transport' : 'outbox';
    super(
      `an ordered event for order key ${JSON.stringify(key)} was refused: its lane numbers events ${describe(laneNumbering)}, but this process numbers them ${describe(refused)}, and mixing the two would drop events as duplicates. Give every process of the bus the same DataSource/outbox setting (all with an outbox, or none)`,
    );
    this.orderKey = key;
  }
}

function describe(numbering: LaneNumbering): string {
  return numbering === 'outbox'
    ? "from the outbox's commitbus_order_keys table"
    : 'in the transport (no outbox)';
}
