/**
 * An API token as stored: never the token itself, only its SHA-256 hash and
 * a short hint for listings. A client is a token's `name`; several tokens may
 * share a name (rotation), and all of them act as the same client.
 */
export interface StoredToken {
  /** The client's name: `[a-z0-9:_-]{1,64}`. */
  readonly name: string;
  /** Hex SHA-256 of the token. */
  readonly hash: string;
  /** The first characters of the token followed by `…`, for listings. */
  readonly hint: string;
  /** When it was created, epoch ms. */
  readonly createdAt: number;
}
