import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** s3rver's one built-in account: it knows no other access key. */
export const OBJECT_STORE_ACCESS_KEY = 'S3RVER';
export const OBJECT_STORE_SECRET = 'S3RVER';

export interface ObjectStoreServer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** The folder s3rver keeps its objects in. */
  directory: string;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver: the S3 REST API over a folder) on a free port of 127.0.0.1, with one
 * bucket, for tests of the object-store blob store.
 */
export async function startObjectStoreServer(bucket = 'thumbnails-test'): Promise<ObjectStoreServer> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    directory,
    close: async () => {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
