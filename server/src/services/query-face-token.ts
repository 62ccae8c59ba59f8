import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { AppSettingsRepository } from '../repositories/app-settings.repository.ts';

export interface QueryFace {
  descriptor: Float32Array;
  /** The descriptor model that computed it: it is only ever searched against vectors of that model. */
  modelId: string;
  organizationId: number;
  userId: number;
  /**
   * The age estimate at upload said this face may belong to a person under 18. Sealed with the
   * descriptor, so the browser cannot clear it; tokens sealed before the flag existed read as true.
   */
  possibleMinor: boolean;
  /**
   * SHA-256 of the face crop (JPEG) the upload answered with this face, so a crop sent back for a review
   * is known to be this face's; undefined in tokens sealed before it was.
   */
  cropSha256?: Buffer | undefined;
  expiresAt: number;
}

/** Spec: a face picked from an upload can be searched for 30 minutes. */
export const QUERY_FACE_TTL_MS = 30 * 60_000;

/** Longest token the routes accept: a 512-dimension descriptor still fits (128 gives ~750 characters). */
export const QUERY_FACE_TOKEN_MAX_LENGTH = 3072;

/** 4: the SHA-256 of the face crop follows the flags byte. */
const VERSION = 4;
/** Tokens sealed before the crop's digest: still searchable, but not sent for review. */
const VERSION_WITHOUT_CROP = 3;
/** Tokens sealed before the flags byte: their age is unknown, so they count as possible minors. */
const VERSION_WITHOUT_FLAGS = 2;
/** Tokens sealed before model ids were: their descriptors are all of the model shipped then. */
const VERSION_WITHOUT_MODEL = 1;
const FLAG_POSSIBLE_MINOR = 1;
const MODEL_OF_VERSION_1 = 'blazeface+dlib128-5pt@1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** expiresAt (float64 ms) + organizationId (uint32) + userId (uint32). */
const HEADER_BYTES = 16;
/** Versions 3 and 4: the flags byte follows the header. */
const FLAGS_BYTES = 1;
/** Version 4: the crop's SHA-256 follows the flags byte. */
const CROP_DIGEST_BYTES = 32;
/** Longest model id a token carries (its length is one byte). */
const MAX_MODEL_ID_BYTES = 255;
const SETTING_KEY = 'query_face_key';
const TOKEN_KEY_INFO = 'query face token v1';
const FINGERPRINT_KEY_INFO = 'query face fingerprint v1';
const STORED_FACE_KEY_INFO = 'stored face crop v1';
const STORED_DESCRIPTOR_KEY_INFO = 'stored face descriptor v1';

/**
 * The faces found in an upload travel to the browser as sealed tokens instead of staying in one
 * process's memory: AES-256-GCM over the descriptor, the organization, the user and the expiry, so any
 * API process that shares the key can open them, nobody can read or forge them, and the upload itself
 * is never stored. The key comes from QUERY_FACE_KEY, or is generated once and kept in the database
 * (app_settings) so that every process over that database agrees on it without configuration.
 *
 * Token: base64url(version ‖ iv ‖ ciphertext ‖ tag); the version byte is authenticated too. The
 * plaintext is expiry ‖ organization ‖ user ‖ flags ‖ crop SHA-256 ‖ model id length ‖ model id ‖
 * descriptor: the model id travels with the descriptor, so a face of one model is never searched against
 * another model's vectors (after a reindex switches models, older tokens are refused). The crop's digest
 * lets a crop sent back for a platform review be checked against the face it claims to be.
 */
export class QueryFaceTokens {
  private readonly keys = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly settings: Pick<AppSettingsRepository, 'getOrCreate'>,
    private readonly configuredKey: string | undefined,
    private readonly ttlMs = QUERY_FACE_TTL_MS,
  ) {}

  async seal(face: Omit<QueryFace, 'expiresAt'>, now = Date.now()): Promise<string> {
    const key = await this.getKey();
    const model = Buffer.from(face.modelId, 'utf8');
    if (model.length === 0 || model.length > MAX_MODEL_ID_BYTES) throw new Error('bad face model id');
    if (face.cropSha256 && face.cropSha256.length !== CROP_DIGEST_BYTES) {
      throw new Error('bad face crop digest');
    }
    const modelAt = HEADER_BYTES + FLAGS_BYTES + CROP_DIGEST_BYTES;
    const descriptorAt = modelAt + 1 + model.length;
    const plain = Buffer.alloc(descriptorAt + face.descriptor.byteLength);
    plain.writeDoubleLE(now + this.ttlMs, 0);
    plain.writeUInt32LE(face.organizationId, 8);
    plain.writeUInt32LE(face.userId, 12);
    plain.writeUInt8(face.possibleMinor ? FLAG_POSSIBLE_MINOR : 0, HEADER_BYTES);
    // Zeros when no crop was answered with the face: no crop's digest is all zeros.
    face.cropSha256?.copy(plain, HEADER_BYTES + FLAGS_BYTES);
    plain.writeUInt8(model.length, modelAt);
    model.copy(plain, modelAt + 1);
    Buffer.from(face.descriptor.buffer, face.descriptor.byteOffset, face.descriptor.byteLength).copy(
      plain,
      descriptorAt,
    );
    const iv = randomBytes(IV_BYTES);
    const version = Buffer.of(VERSION);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(version);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([version, iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The face, if the token is genuine, has not expired and belongs to the organization asking. */
  async open(token: string, organizationId: number, now = Date.now()): Promise<QueryFace | undefined> {
    if (token.length > QUERY_FACE_TOKEN_MAX_LENGTH || !/^[\w-]+$/.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    const version = bytes[0];
    if (bytes.length < 1 + IV_BYTES + HEADER_BYTES + 4 + TAG_BYTES) return undefined;
    if (
      version !== VERSION &&
      version !== VERSION_WITHOUT_CROP &&
      version !== VERSION_WITHOUT_FLAGS &&
      version !== VERSION_WITHOUT_MODEL
    ) {
      return undefined;
    }
    const key = await this.getKey();
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(bytes.subarray(0, 1));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return undefined; // altered, truncated, or sealed with another key
    }
    const expiresAt = plain.readDoubleLE(0);
    let modelId = MODEL_OF_VERSION_1;
    let descriptorAt = HEADER_BYTES;
    let possibleMinor = true;
    let cropSha256: Buffer | undefined;
    const hasFlags = version === VERSION || version === VERSION_WITHOUT_CROP;
    if (hasFlags) possibleMinor = (plain.readUInt8(HEADER_BYTES) & FLAG_POSSIBLE_MINOR) !== 0;
    if (version === VERSION) {
      const digest = plain.subarray(
        HEADER_BYTES + FLAGS_BYTES,
        HEADER_BYTES + FLAGS_BYTES + CROP_DIGEST_BYTES,
      );
      if (digest.some((byte) => byte !== 0)) cropSha256 = Buffer.from(digest);
    }
    if (version !== VERSION_WITHOUT_MODEL) {
      const modelAt =
        HEADER_BYTES + (hasFlags ? FLAGS_BYTES : 0) + (version === VERSION ? CROP_DIGEST_BYTES : 0);
      const length = plain.readUInt8(modelAt);
      modelId = plain.toString('utf8', modelAt + 1, modelAt + 1 + length);
      descriptorAt = modelAt + 1 + length;
    }
    const descriptorBytes = plain.subarray(descriptorAt);
    if (descriptorBytes.length === 0 || descriptorBytes.length % 4 !== 0) return undefined;
    const face: QueryFace = {
      expiresAt,
      organizationId: plain.readUInt32LE(8),
      userId: plain.readUInt32LE(12),
      modelId,
      possibleMinor,
      cropSha256,
      // A copy, so the descriptor is aligned and owns its memory.
      descriptor: new Float32Array(new Uint8Array(descriptorBytes).buffer),
    };
    if (!(expiresAt > now) || face.organizationId !== organizationId) return undefined;
    return face;
  }

  /**
   * A keyed hash of the face's model and descriptor: the same for every upload of the same photo (the
   * engine is deterministic), different for every other face, and useless to anyone without the key.
   * A platform review's approval is bound to it.
   */
  async fingerprint(face: Pick<QueryFace, 'modelId' | 'descriptor'>): Promise<string> {
    const key = await this.getKey(FINGERPRINT_KEY_INFO);
    return createHmac('sha256', key)
      .update(face.modelId, 'utf8')
      .update(Buffer.of(0))
      .update(Buffer.from(face.descriptor.buffer, face.descriptor.byteOffset, face.descriptor.byteLength))
      .digest('base64url');
  }

  /**
   * Seals a descriptor kept at rest (a watched face) under its own derived key, without an expiry, and
   * bound to what it belongs to (e.g. `face-watch:<organization>`) so a sealed descriptor copied to
   * another row or organization does not open.
   */
  async sealStored(descriptor: Float32Array, boundTo: string): Promise<Buffer> {
    const plain = Buffer.from(descriptor.buffer, descriptor.byteOffset, descriptor.byteLength);
    return this.sealAtRest(plain, STORED_DESCRIPTOR_KEY_INFO, `stored:${boundTo}`);
  }

  /** The descriptor sealed by sealStored with the same binding, or undefined. */
  async openStored(sealed: Buffer, boundTo: string): Promise<Float32Array | undefined> {
    if (sealed.length < IV_BYTES + TAG_BYTES + 4) return undefined;
    try {
      const plain = await this.openAtRest(sealed, STORED_DESCRIPTOR_KEY_INFO, `stored:${boundTo}`);
      if (plain.length % 4 !== 0) return undefined;
      return new Float32Array(new Uint8Array(plain).buffer);
    } catch {
      return undefined;
    }
  }

  /** Encrypts bytes kept at rest (a face crop waiting for review): iv ‖ ciphertext ‖ tag. */
  sealBytes(plain: Buffer): Promise<Buffer> {
    return this.sealAtRest(plain, STORED_FACE_KEY_INFO);
  }

  /** The bytes sealBytes encrypted; throws when they were altered or sealed with another key. */
  openBytes(sealed: Buffer): Promise<Buffer> {
    return this.openAtRest(sealed, STORED_FACE_KEY_INFO);
  }

  /** AES-256-GCM under the key derived for `keyInfo`, with optional associated data: iv ‖ ciphertext ‖ tag. */
  private async sealAtRest(plain: Buffer, keyInfo: string, associated?: string): Promise<Buffer> {
    const key = await this.getKey(keyInfo);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    if (associated) cipher.setAAD(Buffer.from(associated, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]);
  }

  private async openAtRest(sealed: Buffer, keyInfo: string, associated?: string): Promise<Buffer> {
    const key = await this.getKey(keyInfo);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    if (associated) decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
  }

  /** One key per use, each derived from the one secret. */
  private getKey(info = TOKEN_KEY_INFO): Promise<Buffer> {
    let key = this.keys.get(info);
    if (!key) {
      key = this.loadKey(info).catch((error: unknown) => {
        this.keys.delete(info); // a database that is down now may answer on the next upload
        throw error;
      });
      this.keys.set(info, key);
    }
    return key;
  }

  private async loadKey(info: string): Promise<Buffer> {
    const secret =
      this.configuredKey ??
      (await this.settings.getOrCreate(SETTING_KEY, randomBytes(32).toString('base64url')));
    return Buffer.from(hkdfSync('sha256', secret, 'osint-query-face', info, 32));
  }
}
