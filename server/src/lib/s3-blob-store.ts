import { createHash, createHmac } from 'node:crypto';
import type { BlobStore } from './blob-store.ts';

/** Where an S3-compatible object store is and how to sign for it (config.ts parses OBJECT_STORE_URL). */
export interface ObjectStoreConfig {
  /** Scheme, host and port only, e.g. http://minio:9000; objects live at <endpoint>/<bucket>/<key>. */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The region signatures are scoped to (OBJECT_STORE_REGION); MinIO and Ceph accept us-east-1. */
  region: string;
}

/** A request that hangs longer than this fails: a thumbnail is a few kilobytes. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Keys deleted at once (one DeleteObject each): an opt-out frees a handful of thumbnails. */
const DELETE_CONCURRENCY = 8;
const EMPTY_PAYLOAD_SHA256 = sha256Hex(Buffer.alloc(0));

/**
 * The blob store in an S3-compatible object store (OBJECT_STORE_URL): MinIO, Ceph, AWS S3 and others, with
 * path-style addressing (<endpoint>/<bucket>/<key>), which all of them serve. It speaks the REST API with
 * fetch and signs each request with AWS Signature Version 4, so no SDK is needed for four operations.
 *
 * Unlike the database's store, a key written again is overwritten; keys name their content (the image's
 * sha256), so the bytes are the same.
 */
export class S3BlobStore implements BlobStore {
  private readonly timeoutMs: number;
  private readonly endpoint: URL;

  constructor(
    private readonly config: ObjectStoreConfig,
    options: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.endpoint = new URL(config.endpoint);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const response = await this.send('PutObject', 'PUT', key, bytes);
    if (!response.ok) throw await this.failure('PutObject', key, response);
    await response.body?.cancel();
  }

  async get(key: string): Promise<Buffer | null> {
    const response = await this.send('GetObject', 'GET', key);
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) throw await this.failure('GetObject', key, response);
    return Buffer.from(await response.arrayBuffer());
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
      await Promise.all(keys.slice(i, i + DELETE_CONCURRENCY).map((key) => this.deleteOne(key)));
    }
  }

  async existingKeys(keys: readonly string[]): Promise<Set<string>> {
    const existing = new Set<string>();
    for (const key of keys) {
      const response = await this.send('HeadObject', 'HEAD', key);
      await response.body?.cancel();
      if (response.ok) existing.add(key);
      else if (response.status !== 404) throw await this.failure('HeadObject', key, response);
    }
    return existing;
  }

  private async deleteOne(key: string): Promise<void> {
    const response = await this.send('DeleteObject', 'DELETE', key);
    // S3 answers 204 for an absent key too; some compatible servers answer 404.
    if (!response.ok && response.status !== 404) throw await this.failure('DeleteObject', key, response);
    await response.body?.cancel();
  }

  private async send(operation: string, method: string, key: string, body?: Buffer): Promise<Response> {
    const canonicalUri = objectPath(this.config.bucket, key);
    const payloadHash = body ? sha256Hex(body) : EMPTY_PAYLOAD_SHA256;
    const amzDate = amzTimestamp(new Date());
    const headers: Record<string, string> = {
      host: this.endpoint.host,
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': amzDate,
    };
    const authorization = signatureV4Authorization({
      method,
      canonicalUri,
      canonicalQuery: '',
      headers,
      payloadHash,
      amzDate,
      region: this.config.region,
      service: 's3',
      accessKeyId: this.config.accessKeyId,
      secretAccessKey: this.config.secretAccessKey,
    });
    const { host: _host, ...sent } = headers;
    try {
      return await fetch(`${this.endpoint.origin}${canonicalUri}`, {
        method,
        headers: { ...sent, authorization },
        ...(body ? { body: new Uint8Array(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : networkReason(error);
      throw new Error(`Object store ${operation} of ${key} failed: ${reason}`, { cause: error });
    }
  }

  /** An error naming the operation, the key, the HTTP status and S3's error code — never a credential. */
  private async failure(operation: string, key: string, response: Response): Promise<Error> {
    const text = await response.text().catch(() => '');
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
    return new Error(
      `Object store ${operation} of ${key} failed: HTTP ${response.status}${code ? ` ${code}` : ''}`,
    );
  }
}

/** What a failed connection says (fetch's own message is only "fetch failed"). */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string }) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** /<bucket>/<key>, each segment percent-encoded as the canonical request wants it (and sent the same). */
export function objectPath(bucket: string, key: string): string {
  return `/${uriEncode(bucket)}/${key.split('/').map(uriEncode).join('/')}`;
}

/** RFC 3986 encoding: everything but A–Z a–z 0–9 - _ . ~ as %XX (encodeURIComponent spares !'()* too). */
function uriEncode(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** 20130524T000000Z: the x-amz-date form of a moment. */
export function amzTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export interface SignatureV4Request {
  method: string;
  /** The path, already encoded (objectPath). */
  canonicalUri: string;
  /** Sorted, encoded query parameters; '' for none. */
  canonicalQuery: string;
  /** Every header to sign, host included, with lower-case names. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body (also sent as x-amz-content-sha256). */
  payloadHash: string;
  /** x-amz-date, e.g. 20130524T000000Z. */
  amzDate: string;
  region: string;
  service: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The Authorization header of AWS Signature Version 4 (AWS4-HMAC-SHA256) for one request. */
export function signatureV4Authorization(request: SignatureV4Request): string {
  const names = Object.keys(request.headers)
    .map((name) => name.toLowerCase())
    .sort();
  const lowerCased = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const canonicalHeaders = names
    .map((name) => `${name}:${lowerCased[name]!.trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    request.canonicalUri,
    request.canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const day = request.amzDate.slice(0, 8);
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    request.amzDate,
    scope,
    sha256Hex(Buffer.from(canonicalRequest, 'utf8')),
  ].join('\n');
  let signingKey = hmac(`AWS4${request.secretAccessKey}`, day);
  for (const part of [request.region, request.service, 'aws4_request']) signingKey = hmac(signingKey, part);
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return (
    `AWS4-HMAC-SHA256 Credential=${request.accessKeyId}/${scope},` +
    `SignedHeaders=${signedHeaders},Signature=${signature}`
  );
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
