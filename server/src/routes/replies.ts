import type { FastifyReply } from 'fastify';

/** A PDF download: its file name in content-disposition (the web app saves it under that name). */
export function sendPdf(reply: FastifyReply, { pdf, fileName }: { pdf: Buffer; fileName: string }) {
  return reply
    .type('application/pdf')
    .header(
      'content-disposition',
      `attachment; filename="${fileName}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
    )
    .header('cache-control', 'no-store')
    .send(pdf);
}

/** A face or thumbnail: private to the signed-in user, cached by the browser for a day. */
export function sendJpeg(reply: FastifyReply, jpeg: Buffer) {
  return reply.type('image/jpeg').header('cache-control', 'private, max-age=86400').send(jpeg);
}
