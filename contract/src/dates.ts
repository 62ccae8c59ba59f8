// One way to write a day and one to write a moment, on every page, in e-mails and in PDF reports. The
// product speaks British English: "5 Mar 2026" and "5 Mar 2026, 14:05". The specification fixes only the
// default names of saved searches and extractions ("SEARCH DD.MM.YYYY, HH:MM"), which are names, not dates.

export const LOCALE = 'en-GB';

const formats = new Map<string, Intl.DateTimeFormat>();
function format(kind: 'date' | 'dateTime' | 'time', timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone ?? ''}`;
  let formatter = formats.get(key);
  if (!formatter) {
    const options: Intl.DateTimeFormatOptions =
      kind === 'date'
        ? { day: 'numeric', month: 'short', year: 'numeric' }
        : kind === 'time'
          ? { hour: '2-digit', minute: '2-digit' }
          : { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' };
    // A moment printed in a named zone (a PDF is read anywhere) says which zone it is.
    if (timeZone) Object.assign(options, { timeZone }, kind === 'date' ? {} : { timeZoneName: 'short' });
    formatter = new Intl.DateTimeFormat(LOCALE, options);
    formats.set(key, formatter);
  }
  return formatter;
}

/** The day of a moment, "5 Mar 2026": in the reader's zone, or in `timeZone` when given. */
export function formatDate(value: Date | string, timeZone?: string): string {
  return format('date', timeZone).format(new Date(value));
}

/** A moment, "5 Mar 2026, 14:05": in the reader's zone, or in `timeZone` with its name ("14:05 UTC"). */
export function formatDateTime(value: Date | string, timeZone?: string): string {
  return format('dateTime', timeZone).format(new Date(value));
}

/** The time of day of a moment, "14:05", for moments of the same day. */
export function formatTime(value: Date | string): string {
  return format('time', undefined).format(new Date(value));
}

/** A calendar day ("2026-03-05", or the day part of an ISO string) as "5 Mar 2026", in no time zone. */
export function formatDay(isoDay: string): string {
  return format('date', 'UTC').format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`));
}
