import type { Violation } from '@osint/contract/validation';

/** An error whose message is safe to show the user; everything else becomes a generic 500. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly violations?: Violation[],
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, violations?: Violation[]) =>
  new HttpError(400, message, violations);
export const unauthorized = (message = 'Please sign in.') => new HttpError(401, message);
export const forbidden = (message = 'You are not allowed to do this.') => new HttpError(403, message);
export const notFound = (message = 'Not found.') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
