/**
 * After a refused submit, moves focus to the first field marked invalid, so keyboard and screen-reader
 * users land on the problem and a long form scrolls to it. Deferred a frame: the marks render first.
 */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}
