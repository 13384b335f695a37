#!/bin/sh
# Llama-3.1-405B on one 8 x H200 node: bf16 weights do not leave room for
# much KV cache; fp8 weights and KV (with fp8 compute) do. Compare the two.
set -eu
IC=${INFCALC:-build/src/infcalc}
$IC --model llama3.1-405b --hw h200 --chips 8 --context 4096 --sweep batch
$IC --model llama3.1-405b --hw h200 --chips 8 --context 4096 --weights fp8 --kv fp8 \
    --compute fp8 --sweep batch
