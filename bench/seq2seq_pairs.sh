#!/usr/bin/env bash
# The "your own data" goal as a benchmark (not a timed test): 5,000 generated pairs per task
# (attnlab example-pairs), trained with the defaults of `attnlab train seq2seq` (RNN) and a
# 10-epoch Transformer; prints held-out exact match, token error rate, BLEU and training time.
# Usage: bench/seq2seq_pairs.sh [build/native/attnlab]   (one thread; run on a quiet machine)
set -euo pipefail
B="$(realpath "${1:-build/native/attnlab}")"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$T"
"$B" example-pairs --lang en --count 5000 --out en.tsv
"$B" example-pairs --lang zh --count 5000 --out zh.tsv
"$B" example-pairs --lang en --count 5000 --direction digits-words --out en-rev.tsv
printf '%-28s %-12s %6s %8s %8s %8s %8s\n' task arch test exact TER BLEU seconds
run() {  # name arch file flags...
  local name=$1 arch=$2 file=$3
  shift 3
  local extra=()
  [[ $arch == transformer ]] && extra=(--arch transformer --epochs 10 --warmup 200)
  local done
  done=$("$B" train seq2seq --train "$file" "$@" "${extra[@]}" --json --quiet --out m.safetensors | grep '"event":"done"')
  python3 -c '
import json, sys
d = json.loads(sys.argv[1]); s = d["scores"]
print("%-28s %-12s %6d %7.2f%% %7.2f%% %8.2f %8.0f" % (sys.argv[2], sys.argv[3], s["pairs"], 100 * s["exact_match"],
      100 * s["token_error_rate"], s["bleu"], float(sys.argv[4])))' "$done" "$name" "$arch" \
    "$("$B" describe --model m.safetensors --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["train_seconds"])')"
}
for arch in rnn transformer; do
  run "en words -> digits" $arch en.tsv --src-tokens word
  run "zh numerals -> digits" $arch zh.tsv
  run "digits -> en words" $arch en-rev.tsv --tgt-tokens word
done
