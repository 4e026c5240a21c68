import { hostname, userInfo } from 'node:os';
import { describeError, type Logger } from './logger.js';
import type {
  OperatorAction,
  OperatorActionLog,
  OperatorActionQuery,
  OperatorOrigin,
} from './operator-action-log.js';
import { limitRepeats } from './repeat-limit.js';

/**
 * The longest actor the trail keeps, in UTF-16 units (every store keeps that
 * many characters: a `varchar(255)` column on SQL): a longer one is cut, ending in `…`.
 */
export const AUDIT_ACTOR_MAX_LENGTH = 255;

/** The code logged with an operator action the trail could not store. */
export const AUDIT_APPEND_FAILED = 'COMMITBUS_AUDIT_APPEND_FAILED';

let processActor: string | undefined;

/** `user@host` of this process: the actor of an action given no `by.actor`. */
export function defaultActor(): string {
  if (processActor === undefined) {
    let user = 'unknown';
    try {
      user = userInfo().username;
    } catch {
      // No passwd entry for the uid (some containers): the host alone still says where.
    }
    processActor = `${user}@${hostname()}`;
  }
  return processActor;
}

/** How an operator action's outcome is counted for the trail. */
export interface AuditedAction<T> {
  /** `<area>.<verb>`: `dead-letters.redrive`, `rules.pause`. */
  readonly action: string;
  /** What it acts on, as the trail shows it. */
  readonly target: string;
  /** Who asks. */
  readonly by: OperatorOrigin | undefined;
  /** How many things the result says changed (`null`: no count). */
  readonly countOf: (result: T) => number | null;
  /**
   * What an action that failed part-way changed (a re-drive that left some
   * letters): recorded with that count; `undefined` (the default) when the
   * failure changed nothing, which is not recorded.
   */
  readonly partialOf?: (error: unknown) => number | undefined;
}

/**
 * A bus's audit trail (`bus.audit`): list the operator actions taken from
 * any process, newest first. The bus's operator methods record into it: an
 * action that ran is recorded with who asked, from where and how many
 * things it changed (0 included: it was done), one that failed part-way
 * with what it changed; one refused or failed before changing anything is
 * not. Storing the record never fails the action: a record that cannot be
 * stored is logged (`COMMITBUS_AUDIT_APPEND_FAILED`) and the action's result
 * returned.
 */
export class OperatorAudit {
  private readonly logger: Logger;

  /**
   * @param log - where the actions are kept (`transport.audit`).
   * @param logger - where a record that cannot be stored is logged (repeats thinned out).
   */
  constructor(
    private readonly log: OperatorActionLog,
    logger: Logger,
  ) {
    this.logger = limitRepeats(logger);
  }

  /** Up to `limit` actions (default 100), newest first, older than `before` (an id) when given. */
  list(query?: OperatorActionQuery): Promise<OperatorAction[]> {
    return this.log.list(query);
  }

  /** How many actions the trail keeps (at most `audit.maxEntries`). */
  count(): Promise<number> {
    return this.log.count();
  }

  /** @internal Runs `work` and records it as `audited` says; resolves or rejects as `work` did. */
  async run<T>(audited: AuditedAction<T>, work: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      const partial = audited.partialOf?.(error);
      if (partial !== undefined) await this.record(audited.action, audited.target, partial, audited.by);
      throw error;
    }
    await this.record(audited.action, audited.target, audited.countOf(result), audited.by);
    return result;
  }

  /** @internal Stores one action; never rejects (a failure is logged). */
  async record(action: string, target: string, count: number | null, by?: OperatorOrigin): Promise<void> {
    const actor = cutActor(by?.actor ?? defaultActor());
    const source = by?.source ?? 'api';
    target = by?.asked ?? target;
    try {
      await this.log.append({ actor, source, action, target, count });
    } catch (error) {
      this.logger.warn(
        {
          code: AUDIT_APPEND_FAILED,
          action,
          target,
          count,
          actor,
          source,
          error: describeError(error).message,
        },
        'an operator action was done but the audit trail could not store it',
      );
    }
  }
}

// A longer actor would fail the append on SQL and lose the record: cut, never splitting a surrogate pair.
function cutActor(actor: string): string {
  if (actor.length <= AUDIT_ACTOR_MAX_LENGTH) return actor;
  const kept = actor.slice(0, AUDIT_ACTOR_MAX_LENGTH - 1);
  return `${/[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept}…`;
}
