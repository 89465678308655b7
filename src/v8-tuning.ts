// V8 settings the service applies to itself when it starts (startApp), so the image, `npm start`, tests and the
// bench all run with the same heap behaviour, whatever command line started the process.
import { setFlagsFromString } from 'node:v8';

/**
 * Turns V8's allocation-site pretenuring off. A request's objects (its body copy, verdict, record context, the
 * check waiting on its budget draw and record write) live for one or two Redis round trips, long enough that V8
 * sometimes judges their allocation sites long-lived and starts allocating them straight in the old generation.
 * Whether it does is decided early and differs from process to process; when it does, ~20 MB/s of short-lived
 * objects fill the old generation and a mark-compact follows every ~2.7 s. Measured on the cache-hot bench
 * (10 s runs, `--trace-gc`): processes that pretenured spent 1,090–1,180 ms in GC per run with p99 20–23 ms;
 * with pretenuring off no mark-compact ran after start-up, 190–210 ms of GC per run, p99 8–9 ms
 * (bench/README.md, round 4). The flag only stops that guess; objects that really live long are promoted as usual.
 */
export function keepShortLivedObjectsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
