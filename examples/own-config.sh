#!/bin/sh
# Your own model: pass a Hugging Face config.json straight to --model.
# my-config.json here is Qwen2.5-7B-Instruct's, as downloaded; on one L4.
set -eu
IC=${INFCALC:-build/src/infcalc}
here=$(dirname "$0")
$IC show model "$here/my-config.json"
$IC --model "$here/my-config.json" --hw l4 --context 4096 --sweep batch
$IC --model "$here/my-config.json" --hw l4 --batch 8 --weights int4 --kv int8 --format csv
