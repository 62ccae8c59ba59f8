import { CONTACT_MESSAGES } from '@osint/contract/validation';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ContactForm } from '../../src/features/support/contact-form';

interface Call {
  url: string;
  body: { email: string; subject: string; message: string; files: { fileName: string; base64: string }[] };
}

/** Answers every fetch with `status`/`body` (or throws `error`) and records what was sent. */
function mockFetch(answer: { status: number; body?: unknown } | Error) {
  const calls: Call[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    calls.push({ url: String(input), body: JSON.parse(String(init?.body)) as Call['body'] });
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(answer.body ?? {}), { status: answer.status });
  });
  return calls;
}

function renderForm(lockedEmail?: string) {
  const user = userEvent.setup();
  const { container } = render(<ContactForm lockedEmail={lockedEmail} />);
  const fileInput = container.querySelector<HTMLInputElement>('input[type="file"]')!;
  return { user, fileInput };
}

const sendButton = () => screen.getByRole('button', { name: 'Send message' });

async function chooseSubject(user: ReturnType<typeof userEvent.setup>, subject: string) {
  await user.click(screen.getByRole('button', { name: /Subject/ }));
  await user.click(screen.getByRole('option', { name: subject }));
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('ContactForm validation', () => {
  test('shows the three required messages word for word and sends nothing', async () => {
    const calls = mockFetch({ status: 200 });
    const { user } = renderForm();
    await user.click(sendButton());
    expect(screen.getByText(CONTACT_MESSAGES.emailRequired)).toBeTruthy();
    expect(screen.getByText(CONTACT_MESSAGES.subjectRequired)).toBeTruthy();
    expect(screen.getByText(CONTACT_MESSAGES.messageRequired)).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  test('format and blocked-provider messages for the e-mail', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Email'), 'not-an-address');
    await user.click(sendButton());
    expect(screen.getByText(CONTACT_MESSAGES.emailFormat)).toBeTruthy();

    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'me@yahoo.com');
    await user.click(sendButton());
    expect(
      screen.getByText("We don't support emails from 'yahoo.com'. Please use a different email provider."),
    ).toBeTruthy();
  });

  test('editing a field clears its own error only', async () => {
    const { user } = renderForm();
    await user.click(sendButton());
    await user.type(screen.getByLabelText('Message'), 'H');
    expect(screen.queryByText(CONTACT_MESSAGES.messageRequired)).toBeNull();
    expect(screen.getByText(CONTACT_MESSAGES.emailRequired)).toBeTruthy();

    await chooseSubject(user, 'Billing');
    expect(screen.queryByText(CONTACT_MESSAGES.subjectRequired)).toBeNull();
    expect(screen.getByText(CONTACT_MESSAGES.emailRequired)).toBeTruthy();

    await user.type(screen.getByLabelText('Email'), 'a');
    expect(screen.queryByText(CONTACT_MESSAGES.emailRequired)).toBeNull();
  });

  test('the send button looks disabled while the message is empty, but still explains on click', async () => {
    const { user } = renderForm();
    expect(sendButton().className).toContain('btn--looks-disabled');
    expect((sendButton() as HTMLButtonElement).disabled).toBe(false);
    await user.type(screen.getByLabelText('Message'), 'Hello');
    expect(sendButton().className).not.toContain('btn--looks-disabled');
    await user.clear(screen.getByLabelText('Message'));
    expect(sendButton().className).toContain('btn--looks-disabled');
  });

  test('offers the four subjects of the spec', async () => {
    const { user } = renderForm();
    await user.click(screen.getByRole('button', { name: /Subject/ }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'General Inquiry',
      'Product Support',
      'Billing',
      'Feedback',
    ]);
  });
});

describe('ContactForm attachments', () => {
  test('adds several files of any type, previews images, and removes one at a time', async () => {
    const calls = mockFetch({ status: 200 });
    const { user, fileInput } = renderForm('analyst@acme-intel.com');
    const image = new File([new Uint8Array([137, 80, 78, 71])], 'face.png', { type: 'image/png' });
    const pdf = new File(['%PDF-1.4'], 'report.pdf', { type: 'application/pdf' });
    const notes = new File(['hello'], 'notes.txt', { type: 'text/plain' });
    await user.upload(fileInput, [image, pdf, notes]);

    const list = await screen.findByRole('list', { name: 'Attached files' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(3));
    const imageItem = within(list).getByText('face.png').closest('li')!;
    expect(imageItem.querySelector('img')?.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const pdfItem = within(list).getByText('report.pdf').closest('li')!;
    expect(pdfItem.querySelector('img')).toBeNull();
    expect(pdfItem.querySelector('.contact-form-thumb--file')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Remove report.pdf' }));
    expect(screen.queryByText('report.pdf')).toBeNull();
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);

    await chooseSubject(user, 'Product Support');
    await user.type(screen.getByLabelText('Message'), 'See the attached files.');
    await user.click(sendButton());
    await screen.findByText(CONTACT_MESSAGES.success);
    expect(calls[0]?.body.files.map((f) => f.fileName)).toEqual(['face.png', 'notes.txt']);
    expect(calls[0]?.body.files[1]?.base64).toBe(`data:text/plain;base64,${btoa('hello')}`);
  });

  test('the file picker is opened by a real, focusable button', async () => {
    const { user, fileInput } = renderForm();
    const click = vi.spyOn(fileInput, 'click');
    const picker = screen.getByRole('button', { name: 'choose files' });
    picker.focus();
    await user.keyboard('{Enter}');
    expect(click).toHaveBeenCalled();
  });
});

describe('ContactForm sending', () => {
  test('with a locked e-mail the field is prefilled and disabled, and success keeps only the e-mail', async () => {
    const calls = mockFetch({ status: 200 });
    const { user, fileInput } = renderForm('analyst@acme-intel.com');
    const email = screen.getByLabelText('Email') as HTMLInputElement;
    expect(email.value).toBe('analyst@acme-intel.com');
    expect(email.disabled).toBe(true);

    await chooseSubject(user, 'Feedback');
    await user.type(screen.getByLabelText('Message'), 'Great product.');
    await user.upload(fileInput, new File(['x'], 'x.txt', { type: 'text/plain' }));
    await screen.findByText('x.txt');
    await user.click(sendButton());

    expect(await screen.findByText(CONTACT_MESSAGES.success)).toBeTruthy();
    expect(calls[0]).toMatchObject({
      url: '/api/support/contact-support',
      body: { email: 'analyst@acme-intel.com', subject: 'Feedback', message: 'Great product.' },
    });
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('');
    expect(screen.getByRole('button', { name: /Subject/ }).textContent).toContain('Select a subject');
    expect(screen.queryByText('x.txt')).toBeNull();
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('analyst@acme-intel.com');
  });

  test('refuses a file over 5 MB as it is added, naming it, and keeps the files already attached', async () => {
    mockFetch({ status: 200 });
    const { user, fileInput } = renderForm('analyst@acme-intel.com');
    await user.upload(fileInput, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    const list = await screen.findByRole('list', { name: 'Attached files' });
    await user.upload(
      fileInput,
      new File([new Uint8Array(6 * 1024 * 1024)], 'scan.tiff', { type: 'image/tiff' }),
    );
    expect(await screen.findByText('The file "scan.tiff" is larger than 5 MB.')).toBeTruthy();
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    expect(within(list).queryByText('scan.tiff')).toBeNull();
  });

  test('two drops in quick succession are checked together against the limit of 10 files', async () => {
    mockFetch({ status: 200 });
    const { container } = render(<ContactForm lockedEmail="analyst@acme-intel.com" />);
    const dropZone = container.querySelector('.contact-form-dropzone')!;
    const files = (prefix: string, count: number) =>
      Array.from(
        { length: count },
        (_, i) => new File(['page'], `${prefix}-${i + 1}.txt`, { type: 'text/plain' }),
      );
    // The second drop comes before the first one's files are read and listed.
    fireEvent.drop(dropZone, { dataTransfer: { files: files('first', 6) } });
    fireEvent.drop(dropZone, { dataTransfer: { files: files('second', 5) } });

    expect(await screen.findByText('At most 10 files can be attached.')).toBeTruthy();
    const list = await screen.findByRole('list', { name: 'Attached files' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(6));
    expect(within(list).queryByText('second-1.txt')).toBeNull();
  });

  test('server violations appear under their fields, files under the attachments', async () => {
    mockFetch({
      status: 400,
      body: {
        message: 'Please correct the highlighted fields.',
        violations: [
          { field: 'email', message: 'Server says no to this e-mail' },
          { field: 'files', message: 'The attached files together are larger than 10 MB.' },
        ],
      },
    });
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Email'), 'me@acme-intel.com');
    await chooseSubject(user, 'Billing');
    await user.type(screen.getByLabelText('Message'), 'Invoice please');
    await user.click(sendButton());

    const emailError = await screen.findByText('Server says no to this e-mail');
    expect(within(emailError.closest('.field') as HTMLElement).getByLabelText('Email')).toBeTruthy();
    const filesError = screen.getByText('The attached files together are larger than 10 MB.');
    expect(filesError.closest('.contact-form-files')).toBeTruthy();
    expect(screen.queryByText(CONTACT_MESSAGES.success)).toBeNull();
  });

  test('a network failure is logged and nothing is shown', async () => {
    mockFetch(new TypeError('Failed to fetch'));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Email'), 'me@acme-intel.com');
    await chooseSubject(user, 'Billing');
    await user.type(screen.getByLabelText('Message'), 'Invoice please');
    await user.click(sendButton());

    await waitFor(() => expect(logged).toHaveBeenCalled());
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('status')).toBeNull();
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('Invoice please');
  });
});
