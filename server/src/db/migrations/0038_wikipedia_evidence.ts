import { sql, type Kysely } from 'kysely';

// The Wikipedia result of an extraction keeps the sentences its flags were read from, as results and
// connections do (data_extraction_results.evidence): a politician, sanctions or criminal flag is never
// shown without its reason. Rows stored before kept only the flags; the summary they were read from is
// stored with them (person_description: the article's short description and extract), so each of their
// flags gets that summary as its evidence, pointing at the article.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table data_extraction_wikipedia add column evidence jsonb not null default '[]'::jsonb`.execute(db);
  await sql`
    update data_extraction_wikipedia set evidence = (
      select coalesce(jsonb_agg(jsonb_build_object(
        'flag', flag, 'source', 'page', 'text', person_description, 'url', url)), '[]'::jsonb)
      from (values ('politician', politician), ('sanctions', sanctions), ('criminal', criminal))
        as flags (flag, raised)
      where raised)
    where politician or sanctions or criminal`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_extraction_wikipedia drop column evidence`.execute(db);
}
