import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventModel } from './event-model.js';

/** A model checked against its DataSource: its name, metadata and primary columns. */
export interface ResolvedModel {
  /** Its name in results and errors. */
  readonly name: string;
  /** The model as declared. */
  readonly model: EventModel<ObjectLiteral>;
  /** Its entity's metadata. */
  readonly metadata: EntityMetadata;
  /** Property names of its primary columns. */
  readonly primary: readonly string[];
  /** Property names a row may carry: its columns' (and embedded objects'). */
  readonly fields: ReadonlySet<string>;
}

/** Resolves each model's entity on `dataSource`; throws naming a model that does not fit. */
export function resolveModels(
  dataSource: DataSource,
  models: readonly EventModel<ObjectLiteral>[],
): ResolvedModel[] {
  const names = new Set<string>();
  return models.map((model, i) => {
    if (model === null || typeof model !== 'object' || model.entity === undefined) {
      throw new EventStoreUsageError(
        `models[${i}] has no entity: declare it with defineModel({ entity, reducers })`,
      );
    }
    if (!dataSource.hasMetadata(model.entity)) {
      throw new EventStoreUsageError(
        `models[${i}]'s entity is not in the DataSource's entities: add it there (and create its table)`,
      );
    }
    const metadata = dataSource.getMetadata(model.entity);
    const name = model.name ?? metadata.name;
    if (names.has(name)) throw new EventStoreUsageError(`two models are named "${name}": give one a name`);
    names.add(name);
    for (const [type, reducer] of Object.entries(model.reducers ?? {})) {
      if (typeof reducer !== 'function') {
        throw new EventStoreUsageError(`model "${name}"'s reducer for "${type}" is not a function`);
      }
    }
    const primary = metadata.primaryColumns.map((c) => c.propertyName);
    if (primary.length === 0)
      throw new EventStoreUsageError(`model "${name}"'s entity has no primary column`);
    const fields = new Set([
      ...metadata.columns.map((c) => c.propertyName),
      ...metadata.embeddeds.map((e) => e.propertyName),
    ]);
    return { name, model, metadata, primary, fields };
  });
}

/** Every event type some model reduces or declares in `types`. */
export function knownTypes(models: readonly ResolvedModel[]): Set<string> {
  const known = new Set<string>();
  for (const { model } of models) {
    for (const type of Object.keys(model.reducers ?? {})) known.add(type);
    for (const type of model.types ?? []) known.add(type);
  }
  return known;
}
