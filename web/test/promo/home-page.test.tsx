import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, test } from 'vitest';
import { HomePage } from '../../src/features/promo/home-page';
import { PUBLIC_SEARCH_ENGINE_URL } from '../../src/features/promo/promo-constants';

afterEach(cleanup);

function renderHome(props: Parameters<typeof HomePage>[0]) {
  return render(
    <MemoryRouter>
      <HomePage {...props} />
    </MemoryRouter>,
  );
}

describe('HomePage', () => {
  test('invites a signed-out visitor to request access', () => {
    renderHome({ signedIn: false });
    expect(screen.getByRole('link', { name: 'REQUEST ACCESS' }).getAttribute('href')).toBe('/register');
    expect(screen.queryByRole('link', { name: 'ACCESS OSINT' })).toBeNull();
  });

  test('sends a signed-in user into the product', () => {
    renderHome({ signedIn: true });
    expect(screen.getByRole('link', { name: 'ACCESS OSINT' }).getAttribute('href')).toBe('/home');
    expect(screen.queryByRole('link', { name: 'REQUEST ACCESS' })).toBeNull();
  });

  test('has the hero, the about block and the two promised bullets', () => {
    renderHome({ signedIn: false });
    const hero = screen.getByRole('heading', { level: 1 });
    expect(hero.textContent).toMatch(/AI-driven insights/);
    expect(hero.textContent).toMatch(/critical context/);
    expect(screen.getByText(/7-day free trial, no credit card required/)).toBeTruthy();
    expect(screen.getByText(/verified, vetted organizations only/)).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'What is OSINT exactly?' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'READ MORE' }).getAttribute('href')).toBe('/about-us');
  });

  test('advertises the four features', () => {
    renderHome({ signedIn: false });
    for (const name of [
      'Face search',
      'Criminal detection',
      'Connection detection',
      'Politician detection',
    ]) {
      expect(screen.getByRole('heading', { level: 3, name })).toBeTruthy();
    }
  });

  test('explains the analysis in five stages', () => {
    renderHome({ signedIn: false });
    expect(screen.getByRole('heading', { level: 2, name: 'Instant Photo-Driven Analysis' })).toBeTruthy();
    expect(screen.getByText('How it works')).toBeTruthy();
    const labels = Array.from(document.querySelectorAll('.promo-step-label')).map((el) => el.textContent);
    expect(labels).toEqual(['Problem', 'Solution', 'Method', 'Benefit', 'Philosophy']);
  });

  test('links to the public search engine outside the product', () => {
    renderHome({ signedIn: false });
    // Spec 000: a 'visit' button, word for word (capitals come from the style).
    const visit = screen.getByRole('link', { name: /^visit/ });
    expect(visit.getAttribute('href')).toBe(PUBLIC_SEARCH_ENGINE_URL);
    expect(visit.getAttribute('target')).toBe('_blank');
    expect(visit.getAttribute('rel')).toContain('noopener');
  });

  test('takes the public search engine address from a prop', () => {
    renderHome({ signedIn: false, publicSearchEngineUrl: 'https://faces.example.org/' });
    expect(screen.getByRole('link', { name: /^visit/ }).getAttribute('href')).toBe(
      'https://faces.example.org/',
    );
  });
});
