#!/usr/bin/env bash
# Regenerates tests/fixtures/seq2seq_pairs/: two small seq2seq models trained by the native
# CLI on generated pairs (attnlab example-pairs) and what the native CLI predicts with them,
# which tests/js/seq2seq_pairs.test.mjs replays through the wasm package.
#   words.safetensors: English number words (word tokens) -> digits (char tokens)
#   zh.safetensors:    Chinese numerals (char tokens) -> English number words (word tokens)
# Usage: scripts/make_pairs_fixtures.sh   (after scripts/build.sh native)
set -euo pipefail
cd "$(dirname "$0")/.."
B="$PWD/build/native/attnlab"
OUT="$PWD/tests/fixtures/seq2seq_pairs"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
mkdir -p "$OUT"
cd "$T"
SMALL="--emb 16 --hidden 32 --combine 32 --epochs 12 --batch-size 32 --lr 0.005 --warmup 50 --seed 1 --quiet"
"$B" example-pairs --count 3000 --max 9999 --seed 5 --out words.tsv
"$B" train seq2seq --train words.tsv --src-tokens word --tgt-tokens char $SMALL --out "$OUT/words.safetensors"
# the same numbers (same seed and count) in Chinese and in English, joined line by line
"$B" example-pairs --lang zh --count 3000 --max 9999 --seed 6 --out zh.tsv
"$B" example-pairs --lang en --count 3000 --max 9999 --seed 6 --direction digits-words --out en.tsv
paste zh.tsv en.tsv | cut -f1,4 > zh-en.tsv
"$B" train seq2seq --train zh-en.tsv --src-tokens char --tgt-tokens word $SMALL --out "$OUT/zh.safetensors"
# ' "NAME": [' and one {"input", "output"} per input: what the native CLI predicts with MODEL
predictions() {
  local name=$1 model=$2 first=1 x
  shift 2
  echo " \"$name\": ["
  for x in "$@"; do
    [[ $first == 1 ]] || echo ','
    first=0
    printf '  {"input": "%s", "output": %s}' "$x" "$("$B" predict --model "$model" --json "$x")"
  done
}
{
  echo '{"source": "scripts/make_pairs_fixtures.sh: attnlab predict --json (int8 decoder, greedy) on each input",'
  predictions words "$OUT/words.safetensors" \
    "seven thousand twelve" "forty two" "nine thousand nine hundred ninety nine" "seven zillion twelve"
  echo '],'
  predictions zh "$OUT/zh.safetensors" "一千零一十" "四十二" "九千九百九十九" "三百X"
  echo ']}'
} > "$OUT/expected.json"
echo "wrote $OUT: $(ls "$OUT" | tr '\n' ' ')"
