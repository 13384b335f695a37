#!/bin/sh
# Llama-3-70B on a 16-chip TPU v5e slice with int8 weights and KV cache:
# the How To Scale Your Model case (about 8.6 ms per step at batch 32,
# context 8192), then the whole batch sweep.
set -eu
IC=${INFCALC:-build/src/infcalc}
$IC --model llama3-70b --hw v5e --chips 16 --batch 32 --context 8192 --weights int8 --kv int8
$IC --model llama3-70b --hw v5e --chips 16 --context 8192 --weights int8 --kv int8 --sweep batch
