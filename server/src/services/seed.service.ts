import { randomBytes } from 'node:crypto';
import { normalizeEmail } from '@osint/contract/email';
import { passwordProblem } from '@osint/contract/password';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { hashPassword } from '../lib/password-hasher.ts';
import { newPublicId } from '../lib/secure-token.ts';

export const PROVIDER_ORGANIZATION_NAME = 'Platform administration';
export const DEMO_ADMIN_EMAIL = 'admin@osint.localhost';
export const DEMO_OWNER_EMAIL = 'analyst@demo-investigations.localhost';
const DEMO_PLAN_DAYS = 365;
export const DEMO_LAW_ENFORCEMENT_NOTE = 'Demo organization, verified when the product first started.';
const DEMO_SEATS = 5;

export interface SeededAccount {
  label: string;
  email: string;
  password: string;
}

/** A random password that satisfies the product's own password rules. */
function generatePassword(): string {
  return `${randomBytes(9).toString('base64url')}-Aa1!`;
}

/**
 * Start-up accounts: the configured admin (created or updated every start), and on the very first start
 * without one, a generated admin plus a demo organization whose owner has an active plan.
 */
export class SeedService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  async run(): Promise<SeededAccount[]> {
    if (this.config.adminEmail && this.config.adminPassword) {
      await this.upsertAdmin(normalizeEmail(this.config.adminEmail), this.config.adminPassword);
      return [];
    }
    const anyUser = await this.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (anyUser) return [];
    const seeded: SeededAccount[] = [];
    const adminPassword = generatePassword();
    await this.upsertAdmin(DEMO_ADMIN_EMAIL, adminPassword);
    seeded.push({ label: 'Admin', email: DEMO_ADMIN_EMAIL, password: adminPassword });
    if (this.config.demoData) {
      const ownerPassword = generatePassword();
      await this.createDemoOrganization(ownerPassword);
      seeded.push({
        label: 'Demo analyst (organization owner)',
        email: DEMO_OWNER_EMAIL,
        password: ownerPassword,
      });
    }
    return seeded;
  }

  private async upsertAdmin(email: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new Error(`ADMIN_PASSWORD does not meet the password rules: ${problem}`);
    const passwordHash = await hashPassword(password);
    await this.db.transaction().execute(async (tx) => {
      const existing = await tx
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirst();
      if (existing) {
        await tx
          .updateTable('users')
          .set({ password_hash: passwordHash, is_admin: true, status: 'ACTIVE', has_access: true })
          .where('id', '=', existing.id)
          .execute();
        return;
      }
      let provider = await tx
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', PROVIDER_ORGANIZATION_NAME)
        .executeTakeFirst();
      provider ??= await tx
        .insertInto('organizations')
        .values({ name: PROVIDER_ORGANIZATION_NAME, link: this.config.publicUrl, type: 'tech' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const now = new Date();
      await tx
        .insertInto('users')
        .values({
          hashed_id: newPublicId(),
          organization_id: provider.id,
          email,
          password_hash: passwordHash,
          role: 'OWNER',
          is_admin: true,
          status: 'ACTIVE',
          has_access: true,
          email_verified_at: now,
          approved_at: now,
        })
        .execute();
    });
  }

  private async createDemoOrganization(password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const now = new Date();
    await this.db.transaction().execute(async (tx) => {
      const organization = await tx
        .insertInto('organizations')
        .values({
          name: 'Demo Investigations Unit',
          link: 'https://demo-investigations.localhost',
          type: 'police',
          // A police unit, verified from the start: the age gate flags some of the demo's adults (the
          // mayor among them) as possible minors, and a newcomer's first search should find her. Every
          // other organization meets the gate until an admin verifies it.
          law_enforcement_verified_at: now,
          law_enforcement_note: DEMO_LAW_ENFORCEMENT_NOTE,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await tx
        .insertInto('users')
        .values({
          hashed_id: newPublicId(),
          organization_id: organization.id,
          email: DEMO_OWNER_EMAIL,
          password_hash: passwordHash,
          role: 'OWNER',
          status: 'ACTIVE',
          has_access: true,
          email_verified_at: now,
          approved_at: now,
        })
        .execute();
      await tx
        .insertInto('billing_plans')
        .values({
          organization_id: organization.id,
          plan_type: 'SUBSCRIPTION',
          start_date: now,
          end_date: new Date(now.getTime() + DEMO_PLAN_DAYS * 86_400_000),
          seat_limit: DEMO_SEATS,
        })
        .execute();
    });
  }
}
