#!/bin/sh
# Serving Llama-3-70B past one decode step: time to first token on 8 x H100
# (fused against unfused attention), speculative decoding with Llama-3.2-1B
# as the draft, prefill/decode disaggregation, and the cheapest hardware,
# chips, precision and batch meeting a 2 s TTFT and a 50 ms TPOT.
set -eu
IC=${INFCALC:-build/src/infcalc}
$IC prefill --model llama3-70b --hw h100 --chips 8 --prompt 8192
$IC specdec --accept 0.75 --draft llama3.2-1b --model llama3-70b --hw h100 --chips 8 --batch 8
$IC disagg --model llama3-70b --hw h100 --chips 8 --batch 64 --prompt 4096 --output 512
$IC optimize --model llama3-70b --ttft 2s --tpot 50ms --prompt 4096 --output 512 --top 5
