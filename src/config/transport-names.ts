import { ConfigError } from './errors/config.error.js';

/** The variable that names the transport (`transportFromEnv`, `loadConfigFromEnv`). */
export const TRANSPORT_VARIABLE = 'COMMITBUS_TRANSPORT';

/** What {@link TRANSPORT_VARIABLE} may say; `bullmq` is the Redis adapter's old name, `memory` SQLite in memory (`sqlite` without a file). */
export const TRANSPORT_NAMES = ['redis', 'bullmq', 'sql', 'sqlite', 'memory'] as const;

/** A value {@link TRANSPORT_VARIABLE} may hold. */
export type TransportName = (typeof TRANSPORT_NAMES)[number];

/**
 * The transport `env` names, `undefined` when {@link TRANSPORT_VARIABLE} is
 * unset or blank; any other value is a `ConfigError` listing the names, so a
 * typo never runs a bus in memory unnoticed.
 */
export function transportNamed(env: NodeJS.ProcessEnv): TransportName | undefined {
  const asked = env[TRANSPORT_VARIABLE]?.trim() ?? '';
  if (asked === '') return undefined;
  if (!(TRANSPORT_NAMES as readonly string[]).includes(asked)) {
    throw new ConfigError(
      `${TRANSPORT_VARIABLE} must be one of ${TRANSPORT_NAMES.join(', ')}, got ${JSON.stringify(asked)}`,
    );
  }
  return asked as TransportName;
}
