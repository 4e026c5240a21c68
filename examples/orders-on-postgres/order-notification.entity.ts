import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A notification the idempotent handler "sent" to the customer: one per order. */
@Entity('order_notifications')
export class OrderNotification {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 64 })
  orderId!: string;

  @Column({ type: 'varchar', length: 200 })
  message!: string;
}
