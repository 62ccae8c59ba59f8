import type { FastifyReply } from 'fastify';

/**
 * A PDF download named in content-disposition (the web app saves it under that name): `filename` in
 * ASCII for every client, and `filename*` (RFC 6266) with the whole name when it is in another script.
 */
export function sendPdf(reply: FastifyReply, { pdf, fileName }: { pdf: Buffer; fileName: string }) {
  const ascii = fileName
    .replace(/[^\x20-\x7e]+/g, '-')
    .replace(/["\\]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/-\./g, '.');
  const disposition =
    ascii === fileName
      ? `attachment; filename="${fileName}"`
      : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
  return reply
    .type('application/pdf')
    .header('content-disposition', disposition)
    .header('cache-control', 'no-store')
    .send(pdf);
}

/**
 * A face or thumbnail: for the signed-in user only, so never stored by the browser either. Its cache is
 * keyed by the address, not by who is signed in: on a shared workstation the next user (of another
 * organization) could open a stored crop by its address without asking the server.
 */
export function sendJpeg(reply: FastifyReply, jpeg: Buffer) {
  return reply.type('image/jpeg').header('cache-control', 'private, no-store').send(jpeg);
}
