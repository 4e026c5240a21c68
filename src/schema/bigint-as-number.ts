import type { ValueTransformer } from 'typeorm';

/** Reads bigint columns (strings on PostgreSQL) as numbers; `null` stays `null`. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
