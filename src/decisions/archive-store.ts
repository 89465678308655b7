// Where the decision archive lives, behind one small interface: a local directory (the default; a mounted
// volume in Kubernetes) or S3-compatible object storage (archive-s3.ts). Keys are '/'-separated relative paths.
// Objects are written whole and never changed: put() is atomic (readers see all of an object or none of it) and
// durable when it resolves; `ifAbsent` refuses to replace an existing object (the chain's manifests).
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, link, mkdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { errorCode } from '../thrown.js';

export interface ArchiveStore {
  /** Writes an object; with ifAbsent, resolves false (and writes nothing) when the key exists. */
  put(key: string, body: Buffer, options?: { ifAbsent?: boolean }): Promise<boolean>;
  get(key: string): Promise<Buffer | null>;
  /** `length` bytes from `offset` of an object, or null when the object is missing. */
  getRange(key: string, offset: number, length: number): Promise<Buffer | null>;
  /** Every key under a prefix ('' for all), sorted. */
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
  /** For logs and errors: where this store is. */
  readonly description: string;
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A directory: each object a file, written to a temporary name, fsynced, then linked or renamed into place. */
export class LocalArchiveStore implements ArchiveStore {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `directory ${root}`;
  }

  private path(key: string): string {
    if (key.split('/').some((part) => part === '..' || part === '')) throw new Error(`bad archive key ${key}`);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Buffer, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      if (options.ifAbsent) {
        // link() fails with EEXIST instead of replacing: an atomic create-if-absent.
        try {
          await link(temporary, path);
        } catch (error) {
          if (errorCode(error) === 'EEXIST') return false;
          throw error;
        }
      } else await rename(temporary, path);
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
    // The directory entry must be durable too before the object counts as written.
    await fsyncPath(dirname(path));
    return true;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Buffer | null> {
    let handle;
    try {
      handle = await open(this.path(key), 'r');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async list(prefix: string): Promise<string[]> {
    // Walk only the directory the prefix names (up to its last '/'), then filter by the rest.
    const cut = prefix.lastIndexOf('/');
    const base = cut < 0 ? this.root : join(this.root, ...prefix.slice(0, cut).split('/'));
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (!entry.name.endsWith('.tmp')) {
          const key = relative(this.root, full).split(sep).join('/');
          if (key.startsWith(prefix)) out.push(key);
        }
      }
    };
    await walk(base);
    return out.sort();
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
