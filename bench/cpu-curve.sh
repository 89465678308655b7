#!/usr/bin/env bash
# The service's CPU per request second by second of one long load, from its first second on: how long its warm-up
# (JIT compiling, caches filling) lasts, against the bench's BENCH_WARMUP. Round 22 in bench/HISTORY.md.
#
#   bench/cpu-curve.sh hot      # or cold; prints "second-of-load  cpu-µs  checks  cpu-µs-per-check"
#
# Runs `npm run bench` with one round of BENCH_CPU_CURVE_SECONDS (26) of load and no warm-up, finds the service's
# process and port, and every second reads the process' CPU time (/proc/PID/stat, all threads) and its checks
# answered (the sum of ce_verdicts_total on its /metrics). Needs Linux, curl and ss. A second's figure is as noisy as
# the machine: read the curve's shape, not one point.
set -euo pipefail
cd "$(dirname "$0")/.."

scenario=${1:-hot}
seconds=${BENCH_CPU_CURVE_SECONDS:-26}
if pgrep -f 'bench/serve\.(js|ts)' >/dev/null; then
  echo 'cpu-curve: a bench service is already running; stop it first (this script reads the one it starts)' >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

BENCH_SCENARIOS=$scenario BENCH_DURATION=$seconds BENCH_WARMUP=0 BENCH_REPEAT=1 npm run bench >"$log" 2>&1 &
bench=$!

pid=''
until [[ -n $pid ]]; do sleep 0.2; pid=$(pgrep -f 'bench/serve\.(js|ts)' | head -1 || true); done
port=''
until [[ -n $port ]]; do
  sleep 0.2
  port=$(ss -ltnpH | grep "pid=$pid," | awk '{print $4}' | grep -oE '[0-9]+$' | head -1 || true)
done

ticks=$(getconf CLK_TCK)
cpu_of() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
checks_of() { curl -s "http://127.0.0.1:$port/metrics" | awk '/^ce_verdicts_total/ { sum += $2 } END { print sum + 0 }'; }

echo 'second-of-load cpu-us checks cpu-us-per-check'
second=0
last_cpu=$(cpu_of) last_checks=$(checks_of)
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  cpu=$(cpu_of 2>/dev/null) || break
  checks=$(checks_of) || break
  answered=$((checks - last_checks))
  if ((answered > 0 || second > 0)); then
    second=$((second + 1))
    awk -v s="$second" -v c=$((cpu - last_cpu)) -v n="$answered" -v t="$ticks" \
      'BEGIN { us = c * 1e6 / t; per = "-"; if (n > 0) per = sprintf("%.1f", us / n); printf "%d %d %d %s\n", s, us, n, per }'
  fi
  last_cpu=$cpu last_checks=$checks
done
wait "$bench"
