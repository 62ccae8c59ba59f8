/** What a file is, from its first bytes: the sender's declared type and name are not trusted. */
const SIGNATURES: { type: string; matches: (bytes: Buffer) => boolean }[] = [
  { type: 'image/jpeg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/png', matches: (b) => b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) },
  { type: 'image/gif', matches: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
  {
    type: 'image/webp',
    matches: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  { type: 'image/bmp', matches: (b) => b.subarray(0, 2).toString('latin1') === 'BM' },
  {
    type: 'image/tiff',
    matches: (b) => ['49492a00', '4d4d002a'].includes(b.subarray(0, 4).toString('hex')),
  },
  { type: 'application/pdf', matches: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-' },
  // Office documents (docx, xlsx…) are zip files too.
  { type: 'application/zip', matches: (b) => b.subarray(0, 4).toString('hex') === '504b0304' },
];

/** Printable UTF-8 text: no NUL or other control bytes than tab and line breaks. */
function isText(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 4096);
  if (sample.length === 0) return false;
  const allowedControls = new Set([0x09, 0x0a, 0x0c, 0x0d]);
  if (sample.some((byte) => (byte < 0x20 && !allowedControls.has(byte)) || byte === 0x7f)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The media type of a file's content, detected from its bytes; anything unrecognised (an executable, a
 * script disguised as an image) is `application/octet-stream`, which no mail client opens inline.
 */
export function detectFileType(bytes: Buffer): string {
  const known = SIGNATURES.find((signature) => signature.matches(bytes));
  if (known) return known.type;
  return isText(bytes) ? 'text/plain' : 'application/octet-stream';
}

/**
 * Invisible characters that change how a name is displayed: bidirectional controls (U+202E turns
 * "photo\u202Egpj.exe" into "photoexe.jpg" on screen) and control characters.
 */
const DISPLAY_CONTROLS = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** A stored file name: shown as it is, no path, no controls. */
export function safeFileName(name: string): string {
  return name.replace(DISPLAY_CONTROLS, '').replace(/[\\/]/g, '_').trim().slice(0, 255) || 'attachment';
}
