import { sql, type Kysely } from 'kysely';

// Orders say what they buy and what they saved: the annual discount (a 12-month fixed period costs 20 %
// less), and whether the order is a new plan, the renewal of the plan in force (it starts the day after
// that plan ends) or users added to it for its remaining months. Earlier orders were new plans without a
// discount.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table orders add column discount integer not null default 0 check (discount >= 0);
    alter table orders add column order_type text not null default 'PLAN'
      check (order_type in ('PLAN', 'RENEWAL', 'ADD_USERS'));
    alter table orders add column added_users integer check (added_users between 1 and 99);
    alter table orders add constraint orders_added_users_only_for_add_users
      check ((order_type = 'ADD_USERS') = (added_users is not null));
  `.execute(db);
}
