#!/usr/bin/env bash
# Regenerates tests/fixtures/han_docs/: a small 3-class HAN trained by the native CLI on
# generated documents (attnlab example-docs: sport, cooking, space; format text) and what the
# native CLI predicts with it, which tests/js/han_docs.test.mjs replays through the wasm package.
# Usage: scripts/make_docs_fixtures.sh   (after scripts/build.sh native)
set -euo pipefail
cd "$(dirname "$0")/.."
B="$PWD/build/native/attnlab"
OUT="$PWD/tests/fixtures/han_docs"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
mkdir -p "$OUT"
cd "$T"
"$B" example-docs --count 1500 --seed 3 --out docs.jsonl
"$B" train han --train docs.jsonl --emb 16 --word-hidden 16 --sent-hidden 16 --word-ctx 16 --sent-ctx 16 \
  --min-count 1 --epochs 3 --seed 1 --dtype f32 --quiet --out "$OUT/topics.safetensors"
{
  echo '{"source": "scripts/make_docs_fixtures.sh: attnlab predict --json on each input",'
  echo ' "topics": ['
  first=1
  for x in "The crew launched a rocket. It reached orbit after 12 minutes." \
           "A hot soup was served. Subject: the oven baked fresh dough." \
           "The striker scored a goal. The team won the final." \
           "Zebras quietly philosophize." ""; do
    [[ $first == 1 ]] || echo ','
    first=0
    if [[ -z "$x" ]]; then out="$("$B" predict --model "$OUT/topics.safetensors" --json --input ' ')"; x=' '; else
      out="$("$B" predict --model "$OUT/topics.safetensors" --json --input "$x")"; fi
    printf '  {"input": "%s", "output": %s}' "$x" "$out"
  done
  echo ']}'
} > "$OUT/expected.json"
echo "wrote $OUT: $(ls "$OUT" | tr '\n' ' ')"
