#!/bin/sh
# Scheduled ingest, step 1 (Kubernetes CronJob init container, compose service `fetch`): downloads every public
# source file named in sources.env into $OUT_DIR and writes $OUT_DIR/fetched.env with, per file, when it was
# fetched and the server's Last-Modified. Step 2 (run-ingest.sh) passes those as the ingest's per-source as-of
# flags for files whose content carries no date. Any failed download fails the job (the serving snapshot stays
# untouched, and the staleness alert fires if failures continue). Needs only POSIX sh, curl and unzip.
set -eu
OUT=${OUT_DIR:-/data}
mkdir -p "$OUT"
: > "$OUT/fetched.env.part"

iso_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# fetch NAME FILE URL: download URL to $OUT/FILE; NAME is the source's key in fetched.env.
fetch() {
  name=$1 file=$2 url=$3
  if [ -z "$url" ]; then
    echo "fetch: $name: no URL configured, skipped"
    return 0
  fi
  fetched_at=$(iso_now)
  last_modified=$(curl --fail --silent --show-error --location --retry "${FETCH_RETRIES:-5}" --retry-delay 10 --retry-all-errors \
    --connect-timeout 30 --max-time 3600 --output "$OUT/$file.part" --write-out '%header{last-modified}' "$url")
  mv "$OUT/$file.part" "$OUT/$file"
  # Socrata exports are generated on request (Last-Modified says nothing); the dataset's metadata says when its
  # rows were last updated (rowsUpdatedAt, epoch seconds): that is the publisher's as-of for the file.
  rows_updated=''
  case "$url" in
    https://data.transportation.gov/api/views/*/rows.csv*)
      meta_url=$(echo "$url" | sed 's#/rows\.csv.*$#.json#')
      rows_updated=$(curl --fail --silent --show-error --location --retry 3 --max-time 60 "$meta_url" \
        | grep -o '"rowsUpdatedAt" *: *[0-9]*' | grep -o '[0-9]*$' || true)
      ;;
  esac
  echo "fetch: $name: $(wc -c < "$OUT/$file") bytes from $url (rowsUpdatedAt: ${rows_updated:-none}, Last-Modified: ${last_modified:-none})"
  {
    echo "${name}_FILE='$OUT/$file'"
    echo "${name}_FETCHED_AT='$fetched_at'"
    echo "${name}_ROWS_UPDATED_AT='$rows_updated'"
    echo "${name}_LAST_MODIFIED='$last_modified'"
  } >> "$OUT/fetched.env.part"
}

fetch CENSUS census.csv "${CENSUS_URL:-}"
fetch AUTHORITY authority.csv "${AUTHORITY_URL:-}"
fetch INSURANCE insurance.csv "${INSURANCE_URL:-}"
fetch INSURANCE_HISTORY insurance-history.csv "${INSURANCE_HISTORY_URL:-}"
fetch REVOCATIONS revocations.csv "${REVOCATIONS_URL:-}"
fetch OOS oos.csv "${OOS_URL:-}"
fetch OFAC_SDN ofac-sdn.csv "${OFAC_SDN_URL:-}"
fetch OFAC_ALT ofac-alt.csv "${OFAC_ALT_URL:-}"
fetch OFAC_CONS ofac-cons.csv "${OFAC_CONS_URL:-}"
fetch OFAC_CONS_ALT ofac-cons-alt.csv "${OFAC_CONS_ALT_URL:-}"

if [ -n "${SAM_URL:-}" ]; then
  yyddd="$(date -u +%y)$(date -u +%j)"
  fetch SAM_ZIP sam.zip "$(echo "$SAM_URL" | sed "s/{YYDDD}/$yyddd/g")"
  unzip -p "$OUT/sam.zip" > "$OUT/sam.csv"   # the extract ZIP holds exactly one CSV
  rm -f "$OUT/sam.zip"
  sed -n -e 's/^SAM_ZIP_FETCHED_AT=/SAM_FETCHED_AT=/p' -e 's/^SAM_ZIP_LAST_MODIFIED=/SAM_LAST_MODIFIED=/p' \
    "$OUT/fetched.env.part" > "$OUT/sam.env"
  { cat "$OUT/sam.env"; echo "SAM_FILE='$OUT/sam.csv'"; } >> "$OUT/fetched.env.part"
  rm -f "$OUT/sam.env"
else
  echo "fetch: SAM: no URL configured, skipped"
fi

# The census and authority files are required by the ingest; refuse to hand an incomplete set to step 2.
[ -s "$OUT/census.csv" ] && [ -s "$OUT/authority.csv" ] || { echo "fetch: census and authority files are required" >&2; exit 1; }
mv "$OUT/fetched.env.part" "$OUT/fetched.env"
echo "fetch: done"
