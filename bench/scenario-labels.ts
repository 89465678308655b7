// The HTTP load bench's row labels (bench/http-load.ts writes them into every results file). Tools that read those
// files back (bench/rate-curve.ts) find rows by these, so they live in one place.
export const RAW = 'raw uWS, fixed JSON';
export const RAW_VERDICT = 'raw uWS, fixed JSON of the verdict\'s length';
export const FLOOR = 'uWS floor: body read + 1 batched Redis trip';
export const HOT = 'service, cache-hot';
/** The same service on the second HTTP engine (HTTP_ENGINE=node, node:http). */
export const HOT_NODE = 'service on the node engine, cache-hot';
export const DIRECT = 'service parts, one direct uWS handler, cache-hot';
export const COLD = 'service, cache-cold';
