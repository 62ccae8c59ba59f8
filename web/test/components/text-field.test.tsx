import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, test } from 'vitest';
import { TextArea, TextInput } from '../../src/components/text-field';

afterEach(cleanup);

test('text fields take the direction of what is typed (Arabic and Hebrew right to left)', () => {
  render(
    <>
      <TextInput label="Name" defaultValue="محمد الأحمد" />
      <TextArea label="Note" defaultValue="שלום" />
    </>,
  );
  expect(screen.getByLabelText('Name').getAttribute('dir')).toBe('auto');
  expect(screen.getByLabelText('Note').getAttribute('dir')).toBe('auto');
});
