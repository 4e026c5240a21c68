import type { DeadLetter } from './dead-letter.js';
import { UnknownDeadLetterKindError } from './errors/unknown-dead-letter-kind.error.js';

/**
 * How one kind of dead letter is re-driven, registered by the room that owns
 * the kind (`handler` by the handlers' wiring, `webhook` by the router).
 * `Work` is what re-drives one letter (a handler job, an event, the letter).
 */
export interface DeadLetterRedriver<Work = unknown> {
  /**
   * The work that re-drives `letter`, synchronously; throws when it cannot
   * (an undecodable payload, an unknown handler): that letter stays, and
   * `DeadLetterRedriveError` names it once the others are re-driven.
   */
  prepare(letter: DeadLetter): Work;
  /**
   * Runs the work of this kind's letters: with `oneByOne`, one letter's at a
   * time, each letter removed as soon as its call resolves (one that fails
   * stays, alone); without, every prepared letter's in one call, the letters
   * removed after it. Kinds registered with the same redriver run together.
   */
  run(work: readonly Work[]): Promise<void>;
  /** Run and remove letter by letter rather than all at once. */
  readonly oneByOne?: boolean;
}

/**
 * The kinds of dead letters a `DeadLetters` can re-drive, by name (the
 * letter's `kind`). Their owners register them; a letter of a kind no one
 * registered is refused with {@link UnknownDeadLetterKindError} and stays.
 */
export class DeadLetterKinds {
  private readonly byName = new Map<string, DeadLetterRedriver>();

  /** Registers how letters of kind `name` are re-driven; a later registration of a name replaces it. */
  register<Work>(name: string, redriver: DeadLetterRedriver<Work>): void {
    this.byName.set(name, redriver as DeadLetterRedriver);
  }

  /** The names registered so far. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The redriver of `letter`'s kind; throws {@link UnknownDeadLetterKindError} for a kind no one registered. */
  redriverOf(letter: DeadLetter): DeadLetterRedriver {
    const redriver = this.byName.get(letter.kind);
    if (redriver === undefined) throw new UnknownDeadLetterKindError(letter.id, letter.kind, this.names());
    return redriver;
  }
}
