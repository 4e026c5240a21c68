import type { OrderingMode } from '../config/config.js';
import { ConfigError } from '../config/errors/config.error.js';
import type { EventRegistry } from '../events/event-registry.js';
import { orderingPolicyOf } from '../events/event-type.decorator.js';

/**
 * Whether a bus runs ordered lanes (see `config.ordering`): `on`; `auto` when
 * a registered class has `orderBy`; never for `off`, which is refused with a
 * {@link ConfigError} if a registered class has `orderBy`.
 */
export function orderedLanesEnabled(mode: OrderingMode, registry: EventRegistry): boolean {
  if (mode === 'on') return true;
  const ordered = registry.keys().filter((key) => orderingPolicyOf(registry.get(key)) !== undefined);
  if (mode === 'off' && ordered.length > 0) {
    throw new ConfigError(
      `ordering is "off" but these event classes have orderBy: ${ordered.join(', ')}; set ordering to "auto" (or "on"), or remove their orderBy`,
    );
  }
  return ordered.length > 0;
}
