import type { ObjectLiteral } from 'typeorm';
import { step } from './cycle-failure.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { ReduceContext } from './event-model.js';
import { frozenCopy, frozenEvent } from './frozen-data.js';
import type { ResolvedModel } from './resolved-model.js';
import type { StoreEvent } from './store-event.js';

/** What the preprocess step needs from the cycle. */
export interface PreprocessSetting {
  /** Every model, in declaration order. */
  readonly models: readonly ResolvedModel[];
  /** Every type some model knows. */
  readonly known: ReadonlySet<string>;
  /** How long one preprocessor may take. */
  readonly stepTimeoutMs: number;
}

/**
 * Runs each model's preprocessor in model order, each on the form the one
 * before made. A preprocessor may return a canonical form: other data, and
 * another type only when some model knows it (an old name to the current
 * one, say); never another `v` or `ts`. Its output is copied and frozen as
 * history will keep it.
 */
export async function preprocess(
  setting: PreprocessSetting,
  input: StoreEvent,
  path: readonly string[],
  context: (model: ResolvedModel) => ReduceContext<ObjectLiteral>,
): Promise<StoreEvent> {
  let event = input;
  for (const model of setting.models) {
    const pre = model.model.preprocess;
    if (pre === undefined) continue;
    const current = event;
    const out = await step(
      'preprocess',
      path,
      model.name,
      async () => {
        const made = await pre(current, context(model));
        if (made === undefined || made === null) return undefined;
        if (made.type !== current.type && !setting.known.has(made.type)) {
          throw new EventStoreUsageError(
            `the preprocessor changed the type to "${String(made.type)}", which no model knows: a preprocessor may only turn a type into its canonical form, one a model handles (known: ${[...setting.known].join(', ')})`,
          );
        }
        // Copied inside the step: data JSON cannot carry fails the preprocessor.
        return { type: made.type, data: frozenCopy(made.data) };
      },
      setting.stepTimeoutMs,
    );
    if (out !== undefined) event = frozenEvent({ ...event, type: out.type, data: out.data });
  }
  return event;
}
