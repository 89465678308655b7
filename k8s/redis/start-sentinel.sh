#!/bin/sh
# Sentinel start-up: monitor the primary the other Sentinels know (redis-0 on the very first start). Sentinel
# rewrites its config file, so it lives on a writable emptyDir.
set -eu
NS=${POD_NAMESPACE:?set from the downward API}
SELF="$(hostname).sentinel-headless.$NS.svc.cluster.local"
PRIMARY=''
for i in 0 1 2; do
  host="sentinel-$i.sentinel-headless.$NS.svc.cluster.local"
  [ "$host" = "$SELF" ] && continue
  PRIMARY=$(timeout 3 redis-cli -h "$host" -p 26379 --raw SENTINEL get-master-addr-by-name carrier-eligibility 2>/dev/null | head -n 1 || true)
  [ -n "$PRIMARY" ] && break
done
[ -n "$PRIMARY" ] || PRIMARY="redis-0.redis-headless.$NS.svc.cluster.local"
cat > /sentinel/sentinel.conf <<CONF
port 26379
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $SELF
sentinel monitor carrier-eligibility $PRIMARY 6379 2
sentinel auth-pass carrier-eligibility $REDIS_PASSWORD
sentinel down-after-milliseconds carrier-eligibility 5000
sentinel failover-timeout carrier-eligibility 60000
sentinel parallel-syncs carrier-eligibility 1
CONF
exec redis-server /sentinel/sentinel.conf --sentinel
