#!/bin/sh
# Data node start-up: ask the Sentinels who the primary is; with no answer (first start of the whole set) redis-0
# is the primary. Everyone else starts as a replica of the primary, so an old primary that restarts never takes
# writes back from the promoted one.
set -eu
NS=${POD_NAMESPACE:?set from the downward API}
SELF="$(hostname).redis-headless.$NS.svc.cluster.local"
PRIMARY=''
for i in 0 1 2; do
  PRIMARY=$(timeout 3 redis-cli -h "sentinel-$i.sentinel-headless.$NS.svc.cluster.local" -p 26379 --raw \
    SENTINEL get-master-addr-by-name carrier-eligibility 2>/dev/null | head -n 1 || true)
  [ -n "$PRIMARY" ] && break
done
[ -n "$PRIMARY" ] || PRIMARY="redis-0.redis-headless.$NS.svc.cluster.local"
set -- /etc/redis/redis.conf --replica-announce-ip "$SELF" --requirepass "$REDIS_PASSWORD" --masterauth "$REDIS_PASSWORD"
if [ "$PRIMARY" != "$SELF" ]; then set -- "$@" --replicaof "$PRIMARY" 6379; fi
exec redis-server "$@"
