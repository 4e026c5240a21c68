import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The business row each commitbus unit of work inserts (as `bench_row` of the peers). */
@Entity('bench_row')
export class SqlBenchRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 16 })
  side!: string;

  @Column({ type: 'integer' })
  unit!: number;
}
