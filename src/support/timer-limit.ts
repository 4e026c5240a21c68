/**
 * The longest delay a Node timer holds, in milliseconds (2^31 - 1, about
 * 24.8 days). Node runs a timer set for longer after 1 ms, so every
 * millisecond option that ends up in a timer is refused above it.
 */
export const MAX_TIMER_MS = 2_147_483_647;
