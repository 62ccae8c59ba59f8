import type { Db } from '../db/database.ts';

/** The numbers behind GET /api/metrics that live in the database (the same for every process). */
export class MetricsRepository {
  constructor(private readonly db: Db) {}

  async jobCounts(): Promise<{ queue: string; status: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['queue', 'status', (eb) => eb.fn.countAll<string>().as('count')])
      .groupBy(['queue', 'status'])
      .execute();
    return rows.map((r) => ({ queue: r.queue, status: r.status, count: Number(r.count) }));
  }

  async crawlCounts(): Promise<{ status: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('crawls')
      .select(['status', (eb) => eb.fn.countAll<string>().as('count')])
      .groupBy('status')
      .execute();
    return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  /** Pages, images, faces and errors every crawl has recorded so far. */
  async crawlTotals(): Promise<{ pages: number; images: number; faces: number; errors: number }> {
    const row = await this.db
      .selectFrom('crawls')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<string>('pages'), eb.lit(0)).as('pages'),
        eb.fn.coalesce(eb.fn.sum<string>('images'), eb.lit(0)).as('images'),
        eb.fn.coalesce(eb.fn.sum<string>('faces'), eb.lit(0)).as('faces'),
        eb.fn.coalesce(eb.fn.sum<string>('errors'), eb.lit(0)).as('errors'),
      ])
      .executeTakeFirstOrThrow();
    return {
      pages: Number(row.pages),
      images: Number(row.images),
      faces: Number(row.faces),
      errors: Number(row.errors),
    };
  }

  /** What the web index holds now: pages, distinct images, faces. */
  async indexTotals(): Promise<{ pages: number; images: number; faces: number }> {
    const count = async (table: 'pages' | 'images' | 'faces') =>
      Number(
        (
          await this.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      );
    return { pages: await count('pages'), images: await count('images'), faces: await count('faces') };
  }
}
