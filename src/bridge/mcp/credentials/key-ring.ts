import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM: a 32-byte key, a fresh 12-byte nonce per encryption, a 16-byte tag. */
const KEY_BYTES = 32;
const IV_BYTES = 12;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface Sealed {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

/** A credential that this process cannot decrypt: the message says which key and why, never the value. */
export class CredentialKeyError extends Error {
  override name = 'CredentialKeyError';
}

/**
 * CREDENTIALS_KEY: comma-separated `<id>:<base64 of 32 bytes>`, the first the key that encrypts,
 * the others kept so that what they encrypted still decrypts until it is re-encrypted. Rotating
 * is: put a new key first, restart, re-encrypt (`ats mcp credential reencrypt`), then drop the old.
 */
export class CredentialKeyRing {
  private constructor(private readonly keys: ReadonlyMap<string, Buffer>) {}

  /** Throws an Error naming the entry at fault (never its key material). Unset or empty: no keys. */
  static parse(spec: string | undefined): CredentialKeyRing {
    const keys = new Map<string, Buffer>();
    for (const [index, entry] of (spec ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '')
      .entries()) {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID.test(id))
        throw new Error(
          `entry ${index + 1} must be <id>:<base64 key> with an id of 1-32 characters of A-Z a-z 0-9 _ -`,
        );
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== KEY_BYTES)
        throw new Error(
          `key ${id} must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32), not ${key.length}`,
        );
      if (keys.has(id)) throw new Error(`key ${id} is given twice`);
      keys.set(id, key);
    }
    return new CredentialKeyRing(keys);
  }

  /** The key new credentials are encrypted with; null when CREDENTIALS_KEY is unset. */
  get currentId(): string | null {
    return this.keys.keys().next().value ?? null;
  }

  /** `context` is bound to the ciphertext (GCM's additional data): decrypting needs the same. */
  seal(plaintext: string, context: string): Sealed {
    const keyId = this.currentId;
    if (keyId === null)
      throw new CredentialKeyError('CREDENTIALS_KEY is not set, so no credential can be stored');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(keyId)!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId, iv, ciphertext, authTag: cipher.getAuthTag() };
  }

  open(sealed: Sealed, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key)
      throw new CredentialKeyError(
        `the credential was encrypted with key ${sealed.keyId}, which CREDENTIALS_KEY does not hold`,
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.authTag);
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new CredentialKeyError(
        `the credential does not decrypt with key ${sealed.keyId}: CREDENTIALS_KEY holds a different key under that id, or the row was altered`,
      );
    }
  }
}
