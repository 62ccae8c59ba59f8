import { hashPassword } from '../../src/lib/password-hasher.ts';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { sessionCookieOf, type TestApp } from './test-app.ts';

export const FIXTURE_PASSWORD = 'Fixture.Pass1';

/** An approved user in a new organization, created directly in the database. */
export async function createUser(
  t: TestApp,
  options: { email: string; admin?: boolean; role?: 'OWNER' | 'USER'; organizationId?: number; hasAccess?: boolean },
): Promise<{ id: number; organizationId: number }> {
  const organizationId =
    options.organizationId ??
    (
      await t.db
        .insertInto('organizations')
        .values({ name: `Org of ${options.email}`, link: 'https://example.org', type: 'private' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const user = await t.db
    .insertInto('users')
    .values({
      hashed_id: newPublicId(),
      organization_id: organizationId,
      email: options.email,
      password_hash: await hashPassword(FIXTURE_PASSWORD),
      role: options.role ?? 'OWNER',
      is_admin: options.admin ?? false,
      status: 'ACTIVE',
      has_access: options.hasAccess ?? true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: user.id, organizationId };
}

export async function login(t: TestApp, email: string, password = FIXTURE_PASSWORD): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/user/login', payload: { mail: email, password } });
  return sessionCookieOf(response);
}

export async function createAdmin(t: TestApp, email = 'admin@provider.example.org'): Promise<string> {
  await createUser(t, { email, admin: true });
  return login(t, email);
}
