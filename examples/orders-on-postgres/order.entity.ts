import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An order, the service's own data: `placed` when committed, `confirmed` once its handler ran. */
@Entity('orders')
export class Order {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'integer' })
  totalCents!: number;

  @Column({ type: 'varchar', length: 16, default: 'placed' })
  status!: 'placed' | 'confirmed';
}
