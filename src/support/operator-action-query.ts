import { OperatorActionQueryError } from './errors/operator-action-query.error.js';
import { OPERATOR_ACTIONS_LIMIT, type OperatorActionQuery } from './operator-action-log.js';

/**
 * The limit of `query` (its default when absent), and its `before` if it has
 * the shape of the store's ids (`idShape`); throws
 * {@link OperatorActionQueryError} otherwise. For the adapters' `list`.
 */
export function checkedQuery(
  query: OperatorActionQuery,
  idShape: RegExp,
): { readonly limit: number; readonly before: string | undefined } {
  const limit = query.limit ?? OPERATOR_ACTIONS_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new OperatorActionQueryError(`limit must be a whole number from 1, got ${String(query.limit)}`);
  }
  const { before } = query;
  if (before !== undefined && (typeof before !== 'string' || !idShape.test(before))) {
    throw new OperatorActionQueryError(
      `before must be the id of an action the trail listed, got ${JSON.stringify(before)}`,
    );
  }
  return { limit, before };
}
