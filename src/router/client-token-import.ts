import { ConfigError } from '../config/errors/config.error.js';
import { describeError, type Logger } from '../support/logger.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { storedToken } from './api-tokens.js';
import { CLIENT_NAME } from './router-names.js';
import type { RouterStores } from './router-stores.js';
import type { TokenStore } from './token-store.js';

/**
 * The client a listed token belongs to, as Routemaster reads
 * `ROUTEMASTER_CLIENTS`: what precedes its first `--` (`shop--5b0e…` is
 * client `shop`), the whole token when it has none.
 */
export function clientOfToken(token: string): string {
  const at = token.indexOf('--');
  return at === -1 ? token : token.slice(0, at);
}

/**
 * Checks tokens to import: each a token the API would accept
 * (`[a-z0-9:_-]{1,64}`) whose client name is one too, none the root key.
 * Throws a `ConfigError` naming `source` and the token's place in the list,
 * never the token.
 */
export function checkClientTokens(tokens: readonly string[], source: string, rootKey?: string): void {
  tokens.forEach((token, index) => {
    const place = `${source}: token ${index + 1} of ${tokens.length}`;
    if (!CLIENT_NAME.test(token) || !CLIENT_NAME.test(clientOfToken(token))) {
      throw new ConfigError(
        `${place} is not a client token: a token is 1 to 64 of a-z, 0-9, ':', '_' or '-', and what precedes its first "--" (the client's name) is not empty (tokens are not shown)`,
      );
    }
    if (rootKey !== undefined && token === rootKey) {
      throw new ConfigError(`${place} is the root key: a client token cannot be the root key`);
    }
  });
}

/**
 * The tokens of a comma-separated list (`ROUTEMASTER_CLIENTS`), blanks
 * around and between commas skipped; throws as {@link checkClientTokens}.
 */
export function parseClientTokens(raw: string, variable: string): string[] {
  const tokens = raw
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
  checkClientTokens(tokens, variable);
  return tokens;
}

/**
 * Stores each token that is not stored yet, for its client
 * ({@link clientOfToken}); a stored one is left as it is. Returns how many
 * were added.
 */
export async function importClientTokens(
  tokens: readonly string[],
  store: Pick<TokenStore, 'addToken'>,
  now: number,
): Promise<number> {
  let added = 0;
  for (const token of tokens) {
    if (await store.addToken(storedToken(clientOfToken(token), token, now))) added++;
  }
  return added;
}

/** Where {@link importClientsAtStart} imports to. */
export type ClientImportStores = Pick<RouterStores, 'tokens' | 'isUnavailable'>;

/** How {@link importClientsAtStart} waits and retries. */
export interface ClientImportTiming {
  /** How long between tries while the store does not answer. @defaultValue 1_000 */
  readonly retryEveryMs?: number;
  /**
   * How long the start waits for the first try: a store that accepts
   * connections and answers nothing (a frozen Redis) is then treated as not
   * answering yet, and that try goes on in the background.
   * @defaultValue 5_000
   */
  readonly answerWithinMs?: number;
}

/**
 * Imports `tokens` ({@link importClientTokens}) as a router starts. When the
 * store does not answer yet (an outage, or no answer within
 * `answerWithinMs`), it warns once and goes on in the background, trying
 * again every `retryEveryMs` after an outage, until it works or the returned
 * function is called; any other failure throws (at start) or is logged
 * (later).
 */
export async function importClientsAtStart(
  tokens: readonly string[],
  stores: ClientImportStores,
  logger: Logger,
  { retryEveryMs = 1_000, answerWithinMs = 5_000 }: ClientImportTiming = {},
): Promise<() => void> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let warned = false;
  const notYet = (error: string) => {
    if (warned) return;
    warned = true;
    logger.warn(
      { error },
      'router: the store does not answer yet; the listed client tokens are imported once it does',
    );
  };
  const attempt = async (): Promise<void> => {
    try {
      const added = await importClientTokens(tokens, stores.tokens, Date.now());
      logger.info({ listed: tokens.length, added }, 'router: client tokens listed in its options imported');
    } catch (error) {
      if (!stores.isUnavailable(error)) throw error;
      notYet(describeError(error).message);
      if (!stopped) timer = setTimeout(() => void retry(), retryEveryMs);
    }
  };
  const failed = (error: unknown) => {
    logger.error(
      { error: describeError(error).message },
      'router: could not import the listed client tokens',
    );
  };
  const retry = () => attempt().catch(failed);
  if (tokens.length > 0) {
    const first = attempt();
    if ((await readWithin(() => first, answerWithinMs)) === NO_ANSWER) {
      notYet(`no answer within ${answerWithinMs} ms`);
      // It goes on: what it comes to is logged, a later outage retried as above.
      first.catch(failed);
    }
  }
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
