#!/bin/sh
# Scheduled ingest, step 2 (runs in the service image): builds `carrier-eligibility ingest` from what
# fetch-sources.sh left in $DATA_DIR and runs it. A file is passed only if it was fetched. Each file's publisher
# date (Socrata rowsUpdatedAt, else the HTTP Last-Modified) becomes that source's `--as-of-source` flag (used
# by the ingest only for files whose content carries no date), so freshness comes
# from the publisher, never from the download time; a file with neither is passed without a flag, and the ingest
# then uses the date in the file's content or refuses it. Exit code = the ingest's (non-zero keeps the serving
# snapshot and fails the Job).
set -eu
DATA=${DATA_DIR:-/data}
CLI=${CLI:-/app/bin/carrier-eligibility.js}
[ -s "$DATA/fetched.env" ] || { echo "run-ingest: $DATA/fetched.env missing: the fetch step did not finish" >&2; exit 1; }
. "$DATA/fetched.env"

# quote WORD: WORD as one single-quoted shell word (file names and dates never hold quotes, but be safe).
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# add NAME OPTION [SOURCE]: `--OPTION FILE`, plus `--as-of-source SOURCE=DATE` when the publisher gave a date
# (SOURCE: the ingest's source name; alias files of a list have none, their list's date covers them).
add() {
  eval "file=\${${1}_FILE:-}"
  [ -n "$file" ] || return 0
  eval "rows_updated=\${${1}_ROWS_UPDATED_AT:-}"
  eval "last_modified=\${${1}_LAST_MODIFIED:-}"
  published=''
  if [ -n "$rows_updated" ]; then
    published=$(date -u -d "@$rows_updated" +%Y-%m-%dT%H:%M:%SZ)
  elif [ -n "$last_modified" ]; then
    published=$(date -u -d "$last_modified" +%Y-%m-%dT%H:%M:%SZ)
  fi
  ARGS="$ARGS --$2 $(quote "$file")"
  if [ -n "$published" ] && [ -n "${3:-}" ]; then ARGS="$ARGS --as-of-source $(quote "$3=$published")"; fi
}

ARGS=''
add CENSUS census census
add AUTHORITY authority authority
add INSURANCE insurance insurance
add INSURANCE_HISTORY insurance-history insurance_history
add REVOCATIONS revocations revocations
add OOS oos oos
add OFAC_SDN ofac-sdn ofac_sdn
add OFAC_ALT ofac-alt
add OFAC_CONS ofac-cons ofac_cons
add OFAC_CONS_ALT ofac-cons-alt
add SAM sam sam

echo "run-ingest: node $CLI ingest$ARGS"
eval "exec node \"\$CLI\" ingest $ARGS"
