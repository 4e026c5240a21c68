import type { Command } from 'commander';
import { listedTokenKeys } from '../router/listed-token-key.js';
import { formatAge, printJson, printTable } from './output.js';
import { withSharedBus } from './with-bus.js';

/**
 * Adds `commitbus router subscribers` and `commitbus router tokens`: what the
 * router on the bus module's Redis knows (`bus.router`), never a secret
 * (signing secrets and tokens are left out; a token shows its hint and the
 * key `GET /api_tokens` lists, which `DELETE /api_tokens/:token` takes).
 */
export function addRouterInspectCommands(router: Command): void {
  router
    .command('subscribers')
    .description("the router's subscribers with their queues (needs --module)")
    .option('--json', 'print the subscribers as one JSON array')
    .action(async (_flags: unknown, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const stores = loaded.bus.router;
        const [subscribers, stats] = await Promise.all([
          stores.subscribers.listSubscribers(),
          stores.batches.stats(),
        ]);
        const now = Date.now();
        // The uuid is the credential deliveries carry (Basic auth): shown only as whether there is one.
        const rows = subscribers.map(({ signingSecrets, uuid, ...subscriber }) => ({
          ...subscriber,
          credentials: uuid !== null,
          signed: signingSecrets.length > 0,
          queue: stats[subscriber.name] ?? null,
        }));
        if (json) {
          printJson(rows);
          return;
        }
        printTable(
          ['name', 'topics', 'callback', 'paused', 'queued', 'oldest', 'sent', 'health', 'last error'],
          rows.map((s) => [
            s.name,
            s.topics.join(', '),
            s.callback,
            s.paused,
            s.queue?.queued ?? 0,
            formatAge(s.queue?.oldest == null ? null : now - s.queue.oldest),
            s.queue?.sent ?? 0,
            s.queue?.health,
            s.queue?.lastError?.message,
          ]),
        );
      }),
    );
  router
    .command('tokens')
    .description("the router's API tokens: names, keys and hints, never the tokens (needs --module)")
    .option('--json', 'print the tokens as one JSON array')
    .action(async (_flags: unknown, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const stored = await loaded.bus.router.tokens.listTokens();
        const keys = listedTokenKeys(stored);
        const tokens = stored.map(({ name, hint, createdAt }, i) => ({
          name,
          key: keys[i],
          hint,
          createdAt: new Date(createdAt).toISOString(),
        }));
        if (json) printJson(tokens);
        else
          printTable(
            ['name', 'key', 'created at'],
            tokens.map((t) => [t.name, t.key, t.createdAt]),
          );
      }),
    );
}
