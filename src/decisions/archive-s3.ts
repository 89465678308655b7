// The archive on S3-compatible object storage through the AWS SDK v3. Bucket, prefix and endpoint come from
// the config (DECISION_ARCHIVE_S3_*); region and credentials from the SDK's usual environment (AWS_REGION,
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a web identity token, an instance role). A PUT is atomic and
// durable when acknowledged. ifAbsent sends If-None-Match: * (honoured by AWS S3 and most compatible stores;
// the archiver's Redis lock is what keeps two writers apart). Retention in production is the bucket's Object
// Lock default retention in compliance mode (docs/decisions-archive.md), so nothing here sets it per object.
import {
  DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ArchiveStore } from './archive-store.js';

export interface S3StoreOptions {
  bucket: string;
  prefix: string;
  endpoint?: string;
  forcePathStyle: boolean;
}

const missing = (error: unknown) => error instanceof S3ServiceException
  && (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

export class S3ArchiveStore implements ArchiveStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly options: S3StoreOptions, client?: S3Client) {
    this.prefix = options.prefix === '' || options.prefix.endsWith('/') ? options.prefix : `${options.prefix}/`;
    this.description = `s3 bucket ${options.bucket}${this.prefix ? ` prefix ${this.prefix}` : ''}`;
    this.client = client ?? new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
    });
  }

  async put(key: string, body: Buffer, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
    if (options.ifAbsent && (await this.getRange(key, 0, 1)) !== null) return false;
    try {
      await this.client.send(new PutObjectCommand({
        Bucket: this.options.bucket, Key: this.prefix + key, Body: body, ...(options.ifAbsent ? { IfNoneMatch: '*' } : {}),
      }));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 412) return false;
      throw error;
    }
  }

  private async read(key: string, range?: string): Promise<Buffer | null> {
    try {
      const reply = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.prefix + key, ...(range ? { Range: range } : {}) }));
      if (!reply.Body) return Buffer.alloc(0);
      return Buffer.from(await reply.Body.transformToByteArray());
    } catch (error) {
      if (missing(error)) return null;
      // An empty object has no satisfiable range.
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 416) return Buffer.alloc(0);
      throw error;
    }
  }

  get(key: string): Promise<Buffer | null> {
    return this.read(key);
  }

  getRange(key: string, offset: number, length: number): Promise<Buffer | null> {
    return this.read(key, `bytes=${offset}-${offset + length - 1}`);
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const reply = await this.client.send(new ListObjectsV2Command({
        Bucket: this.options.bucket, Prefix: this.prefix + prefix, ContinuationToken: token,
      }));
      for (const item of reply.Contents ?? []) if (item.Key) out.push(item.Key.slice(this.prefix.length));
      token = reply.IsTruncated ? reply.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.prefix + key }));
  }
}
