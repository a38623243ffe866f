#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan) and runs each.
#   scripts/fuzz.sh                 every target for 20 s (what CI runs)
#   scripts/fuzz.sh 3600            every target for an hour (the long run)
#   scripts/fuzz.sh 600 fuzz_email  one target
#   scripts/fuzz.sh --runs 10000000 every target for ten million executions
#   scripts/fuzz.sh --total 10000000 each target until it has ten million executions
#                                   in all, over as many runs as it takes (the documented
#                                   long run, resumable: see fuzz/LONG_RUN.md)
#   scripts/fuzz.sh --report        the executions recorded per target (--report --runs: and each
#                                   run's executions, seconds and rate)
# Every run appends a line per target (UTC time, target, executions, seconds, ok / interrupted /
# crash) to a record: the long run's (--total) to fuzz/executions.tsv, which is committed so the
# run survives the machine, the others to build/fuzz/executions.tsv. A run stopped with SIGINT
# still counts the executions it made (libFuzzer prints them as it exits).
# Corpora grow in build/fuzz/corpus/<target> (seeded from fuzz/corpus and the
# shipped models); a crash leaves its input in build/fuzz/crashes/<target>/. An input that
# took over 10 s of wall time (libFuzzer's slow-unit-*) is not a crash: it is moved to
# build/fuzz/slow/<target>/ and run again alone, and the time it takes then is printed (on a
# loaded machine a fuzzer at nice 10 can wait that long for a core; -timeout=30 still fails a
# run whose input hangs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
RECORD=fuzz/executions.tsv  # the long run's
LOG=build/fuzz/executions.tsv
# executions the long run recorded for a target (every run that ended without a crash)
recorded() { awk -F'\t' -v t="$1" '$2 == t && $5 != "crash" { s += $3 } END { print s + 0 }' "$RECORD"; }
ALL=(fuzz_safetensors fuzz_load_seq2seq fuzz_load_han fuzz_load_mmoe fuzz_load_autoint
     fuzz_load_transformer fuzz_load_lm fuzz_email fuzz_translate fuzz_labeled_docs)
# per run of a target: executions, seconds and the rate (where the seconds were written down)
runs_of() {
  awk -F'\t' -v t="$1" '$2 == t && $5 != "crash" {
    r = ($4 ~ /^[0-9]+$/ && $4 > 0) ? sprintf(" in %d s (%d/s)", $4, $3 / $4) : ""
    printf "%s%s %s%s, %s", sep, substr($1, 1, 10), $3, r, $5; sep = "; " }' "$RECORD"
}
if [[ "${1:-}" == --report ]]; then
  for t in "${ALL[@]}"; do
    printf '%-22s %12s executions recorded\n' "$t" "$(recorded "$t")"
    [[ "${2:-}" == --runs ]] && printf '    runs: %s\n' "$(runs_of "$t")"
  done
  exit 0
fi
LIMIT=(-max_total_time="${1:-20}")
WHAT="${1:-20}s"
TOTAL=0
if [[ "${1:-}" == --runs ]]; then
  LIMIT=(-runs="$2")
  WHAT="$2 executions"
  shift
elif [[ "${1:-}" == --total ]]; then
  TOTAL=$2
  WHAT="up to $2 executions in all"
  LOG=$RECORD
  shift
fi
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL[@]}")

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$JOBS" --target "${TARGETS[@]}" fuzz_make_seeds
mkdir -p build/fuzz/seeds
build/fuzz/fuzz_make_seeds build/fuzz/seeds

seed() {  # target -> seed files
  case "$1" in
    fuzz_safetensors) ls build/fuzz/seeds/*.safetensors ;;
    fuzz_load_seq2seq) echo build/fuzz/seeds/seq2seq.safetensors ;;
    fuzz_load_han) echo build/fuzz/seeds/han.safetensors ;;
    fuzz_load_mmoe) echo build/fuzz/seeds/mmoe.safetensors ;;
    fuzz_load_autoint) echo build/fuzz/seeds/autoint.safetensors ;;
    fuzz_load_transformer) echo build/fuzz/seeds/transformer.safetensors ;;
    fuzz_load_lm) echo build/fuzz/seeds/lm.safetensors ;;
    fuzz_email) ls fuzz/corpus/email/* ;;
    fuzz_translate) ls fuzz/corpus/translate/* ;;
    fuzz_labeled_docs) ls fuzz/corpus/docs/* ;;
  esac
}
for t in "${TARGETS[@]}"; do
  corpus="build/fuzz/corpus/$t" crashes="build/fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  for f in $(seed "$t"); do cp -n "$f" "$corpus/" 2>/dev/null || true; done
  if ((TOTAL)); then
    left=$((TOTAL - $(recorded "$t")))
    if ((left <= 0)); then echo "=== $t: $(recorded "$t") executions recorded already"; continue; fi
    LIMIT=(-runs="$left")
  fi
  echo "=== $t: $WHAT"
  start=$(date +%s)
  out=$("build/fuzz/$t" "$corpus" "${LIMIT[@]}" -max_len=65536 -rss_limit_mb=4096 \
    -timeout=30 -artifact_prefix="$crashes/" -print_final_stats=1 2>&1 |
    grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|SUMMARY|Test unit written|interrupted" || true)
  echo "$out"
  n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' <<<"$out" | tail -1)
  for f in "$crashes"/slow-unit-*; do
    [[ -e $f ]] || continue
    mkdir -p "build/fuzz/slow/$t"
    mv "$f" "build/fuzz/slow/$t/"
    f="build/fuzz/slow/$t/${f##*/}"
    t0=$(date +%s%N)
    "build/fuzz/$t" "$f" -timeout=30 >/dev/null 2>&1 || { echo "fuzz: $t: slow input $f fails alone" >&2; exit 1; }
    echo "fuzz: $t: slow input (not a crash) kept in $f: it runs alone in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  done
  result=ok
  grep -q "interrupted" <<<"$out" && result=interrupted
  compgen -G "$crashes/*" >/dev/null && result=crash
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${n:-0}" "$(($(date +%s) - start))" "$result" >> "$LOG"
  ((TOTAL)) && echo "$t: $(recorded "$t") executions recorded in all"
  if [[ $result == crash ]]; then
    echo "fuzz: $t found a crash: $(ls "$crashes")" >&2
    exit 1
  fi
done
echo "fuzz: no crash (${#TARGETS[@]} target(s), $WHAT; executions recorded in $LOG)"
