import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, test } from 'vitest';
import { AboutPage } from '../../src/features/promo/about-page';
import { ContactHeading } from '../../src/features/promo/contact-heading';

afterEach(cleanup);

describe('AboutPage', () => {
  test('covers OSINT, the company, its purpose and why the product', () => {
    render(
      <MemoryRouter>
        <AboutPage />
      </MemoryRouter>,
    );
    expect(screen.getByRole('heading', { level: 1 })).toBeTruthy();
    for (const name of ['What is OSINT exactly?', 'Who we are', 'Our purpose', 'Why OSINT?']) {
      expect(screen.getByRole('heading', { level: 2, name })).toBeTruthy();
    }
    expect(screen.getByText(/limited liability company founded in Tel Aviv/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'REQUEST ACCESS' }).getAttribute('href')).toBe('/register');
  });

  test('offers a signed-in user the way into the product', () => {
    render(
      <MemoryRouter>
        <AboutPage signedIn />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: 'ACCESS OSINT' }).getAttribute('href')).toBe('/home');
  });
});

describe('ContactHeading', () => {
  test('renders the CONTACT US heading', () => {
    render(<ContactHeading />);
    expect(screen.getByRole('heading', { level: 1, name: 'CONTACT US' })).toBeTruthy();
  });
});
