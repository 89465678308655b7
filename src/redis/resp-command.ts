// A command written straight into its wire bytes (RESP), argument by argument, and sent as those bytes.
//
// The decision recorder's HSET carries two arguments per check of the turn (~40 at load-board rates). Handed to
// ioredis as strings, each record was first built as a string (a rope of its pieces), then measured and wrapped
// by Command.toWritable into a second rope of the whole command ("$<length>\r\n" + argument + "\r\n" per
// argument), which the socket write flattened and encoded to UTF-8 again: three passes and most of a cache-hot
// check's garbage that was not the answer itself (round 15 in bench/README.md). Written here, the pieces that
// repeat are copied as bytes encoded once, the others are written once, and ioredis sends the finished buffer.
//
// Standalone, Sentinel and Cluster clients alike: ioredis routes a Command by its first key (its `args`, which
// hold only the key here) and writes whatever toWritable returns, on a redirection too.
import { Command } from 'ioredis';
import { ByteCollector, utf8, writeBytes, writeNumber } from '../log-bytes.js';
import type { RedisClient } from './connection.js';

/** Room kept for an argument's `$<length>\r\n` when its length is not known: right for 100–999 bytes (a record). */
const ARG_HEAD_GUESS = 6;

/**
 * Writers start in a slice of a shared slab rather than a buffer of their own: a buffer of 4 KiB or more is its
 * own ArrayBuffer with a malloc'd store (a few microseconds per turn's HSET, most of an empty writer's cost in
 * bench/micro). A slice is never handed out twice, and a slab lives while a command still holds a view of it, so
 * a write that the socket queues keeps its bytes. A writer that outgrows its slice moves to a buffer of its own.
 */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let slabUsed = 0;

function slabSlice(bytes: number): Buffer {
  if (bytes > SLAB_BYTES / 4) return Buffer.allocUnsafe(bytes);
  if (slabUsed + bytes > SLAB_BYTES) {
    slab = Buffer.allocUnsafe(SLAB_BYTES);
    slabUsed = 0;
  }
  const slice = slab.subarray(slabUsed, slabUsed + bytes);
  slabUsed += bytes;
  return slice;
}

/** `$<n>\r\n<name>\r\n` per command name, encoded once. */
const nameParts = new Map<string, Uint8Array>();

/** Decimal digits of a non-negative integer. */
function decimalDigits(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/** An ioredis Command whose bytes were written by RespCommandWriter. */
class WrittenCommand extends Command {
  constructor(name: string, key: string, private readonly wire: Buffer) {
    super(name, [key], { replyEncoding: 'utf8' });
  }

  override toWritable(): Buffer {
    return this.wire;
  }
}

/**
 * Builds one command's RESP bytes: `*<count>\r\n`, then the name, the key and each argument as
 * `$<length>\r\n<bytes>\r\n`. A whole argument goes in with arg(); one written in pieces goes between open() and
 * close(), through the ByteSink methods. The buffer grows by doubling and is handed to ioredis by send(), so a
 * writer serves one command.
 */
export class RespCommandWriter extends ByteCollector {
  /** The command's header (`*<count>\r\n$<n>\r\n<name>\r\n`) is written last, right-aligned in this room. */
  private readonly headRoom: number;
  private readonly namePart: Uint8Array;
  private count = 0;
  /** Where the open argument's `$<length>\r\n` goes; -1 when none is open. */
  private openedAt = -1;
  /** The room open() kept for it. */
  private headGuess = ARG_HEAD_GUESS;

  constructor(private readonly name: string, private readonly key: string, initialBytes = 4096) {
    let namePart = nameParts.get(name);
    if (namePart === undefined) {
      namePart = utf8(`$${Buffer.byteLength(name)}\r\n${name}\r\n`);
      nameParts.set(name, namePart);
    }
    // '*', up to ten digits, CRLF, then the name's part.
    const headRoom = 13 + namePart.length;
    super(slabSlice(Math.max(initialBytes, headRoom + 64)), headRoom);
    this.namePart = namePart;
    this.headRoom = headRoom;
    this.arg(key);
  }

  /** Arguments after the name so far (the key included). */
  get argumentCount(): number {
    return this.count;
  }

  /** Appends one whole argument: text as UTF-8. */
  arg(text: string): void {
    // Its length in bytes is its length in code units when it is ASCII (an id, a key): then no move in close().
    this.open(decimalDigits(text.length) + 3);
    this.text(text);
    this.close();
  }

  /**
   * Starts an argument written in pieces (bytes, text, jsonString), ended by close(). `headGuess`: the room kept
   * for its `$<length>\r\n`, right for 100–999 bytes (a record) unless told.
   */
  open(headGuess = ARG_HEAD_GUESS): void {
    if (this.openedAt >= 0) throw new Error('RespCommandWriter: an argument is already open');
    this.ensure(headGuess);
    this.openedAt = this.end;
    this.headGuess = headGuess;
    this.end += headGuess;
  }

  /** Ends the open argument: writes its length in front of it (moving it when that takes other than the guess). */
  close(): void {
    const at = this.openedAt;
    if (at < 0) throw new Error('RespCommandWriter: no argument is open');
    this.openedAt = -1;
    const contentAt = at + this.headGuess;
    const length = this.end - contentAt;
    // `$`, the digits, CRLF.
    const headLength = decimalDigits(length) + 3;
    if (headLength !== this.headGuess) {
      this.ensure(headLength - this.headGuess);
      this.buffer.copyWithin(at + headLength, contentAt, this.end);
      this.end = at + headLength + length;
    }
    const { buffer } = this;
    buffer[at] = 0x24;
    const digitsEnd = writeNumber(buffer, at + 1, length);
    buffer[digitsEnd] = 0x0d;
    buffer[digitsEnd + 1] = 0x0a;
    this.ensure(2);
    this.buffer[this.end] = 0x0d;
    this.buffer[this.end + 1] = 0x0a;
    this.end += 2;
    this.count += 1;
  }

  /** The finished command's bytes (a view of this writer's buffer). */
  finish(): Buffer {
    if (this.openedAt >= 0) throw new Error('RespCommandWriter: an argument is still open');
    const head = `*${this.count + 1}\r\n`;
    const start = this.headRoom - head.length - this.namePart.length;
    this.buffer.write(head, start, 'latin1');
    writeBytes(this.buffer, start + head.length, this.namePart);
    return this.buffer.subarray(start, this.end);
  }

  /** Sends the finished command; its reply as ioredis decodes it (UTF-8 strings). */
  send(client: RedisClient): Promise<unknown> {
    const command = new WrittenCommand(this.name, this.key, this.finish());
    void client.sendCommand(command);
    return command.promise as Promise<unknown>;
  }
}
