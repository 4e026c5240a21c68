import type {
  NewOperatorAction,
  OperatorAction,
  OperatorActionLog,
  OperatorActionQuery,
  OperatorSource,
} from '../../support/operator-action-log.js';
import { checkedQuery } from '../../support/operator-action-query.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';

/** A stream entry's id: `<ms>-<seq>`. */
const STREAM_ID = /^\d+-\d+$/;

/**
 * `OperatorActionLog` on Redis: one stream per bus under its hash tag
 * (`{<prefix>:<name>}:operator-actions`), each action an entry whose id
 * Redis stamps with its clock, trimmed to the newest `maxEntries` by the
 * `XADD` that appends (one key: it works on a Redis Cluster as on one Redis).
 */
export class RedisOperatorActionLog implements OperatorActionLog {
  /**
   * @param client - a connection that fails fast while Redis is away.
   * @param names - the bus's Redis names.
   * @param maxEntries - how many actions are kept (`audit.maxEntries`).
   * @param unavailable - wraps a Redis error into the error to throw.
   */
  constructor(
    private readonly client: RedisClient,
    private readonly names: QueueNames,
    private readonly maxEntries: number,
    private readonly unavailable: (action: string, error: unknown) => Error,
  ) {}

  async append(action: NewOperatorAction): Promise<OperatorAction> {
    const fields = [
      'actor',
      action.actor,
      'source',
      action.source,
      'action',
      action.action,
      'target',
      action.target,
      'count',
      action.count === null ? '' : String(action.count),
    ];
    let id: string | null;
    try {
      id = await this.client.xadd(this.names.operatorActions, 'MAXLEN', this.maxEntries, '*', ...fields);
    } catch (error) {
      throw this.unavailable(`record the operator action ${action.action}`, error);
    }
    return { ...action, id: String(id), at: atOf(String(id)) };
  }

  async list(query: OperatorActionQuery = {}): Promise<OperatorAction[]> {
    const { limit, before } = checkedQuery(query, STREAM_ID);
    let entries: [string, string[]][];
    try {
      entries = await this.client.xrevrange(
        this.names.operatorActions,
        before === undefined ? '+' : `(${before}`,
        '-',
        'COUNT',
        limit,
      );
    } catch (error) {
      throw this.unavailable('list the operator actions', error);
    }
    return entries.map(([id, fields]) => decodeAction(id, fields));
  }

  async count(): Promise<number> {
    try {
      return await this.client.xlen(this.names.operatorActions);
    } catch (error) {
      throw this.unavailable('count the operator actions', error);
    }
  }
}

/** The time a stream id was stamped with. */
function atOf(id: string): Date {
  return new Date(Number(id.slice(0, id.indexOf('-'))));
}

/** A stream entry as an action. */
function decodeAction(id: string, fields: readonly string[]): OperatorAction {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) values.set(fields[i] as string, fields[i + 1] as string);
  const get = (name: string) => values.get(name) ?? '';
  const count = get('count');
  return {
    id,
    at: atOf(id),
    actor: get('actor'),
    source: get('source') as OperatorSource,
    action: get('action'),
    target: get('target'),
    count: count === '' ? null : Number(count),
  };
}
