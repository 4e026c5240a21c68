import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_rules`: one scheduling rule of one bus. */
export interface SqlRuleRow {
  /** The bus's name. */
  bus: string;
  /** The rule's id (`ruleId(kind, target)`). */
  ruleId: string;
  /** `pause` or `block`. */
  kind: string;
  /** The rule's target as JSON. */
  target: string;
  /** Epoch ms when the rule was first set. */
  since: number;
}

/** The `commitbus_rules` table of the SQL transport's scheduling rules. Part of `COMMITBUS_ENTITIES`. */
export const SqlRuleEntity = new EntitySchema<SqlRuleRow>({
  name: 'CommitbusSqlRule',
  tableName: 'commitbus_rules',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    ruleId: { name: 'rule_id', type: 'varchar', length: 512, primary: true },
    kind: { name: 'kind', type: 'varchar', length: 16 },
    target: { name: 'target', type: 'text' },
    since: { name: 'since', type: 'bigint', transformer: bigintAsNumber },
  },
});
