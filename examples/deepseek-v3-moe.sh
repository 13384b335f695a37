#!/bin/sh
# DeepSeek-V3 (671B MoE, 256 routed experts top-8, MLA cache) on 8 x H200 in
# fp8: a small batch reads only the experts its tokens route to (163 of 256
# at batch 32); by a few hundred tokens nearly every expert is touched (252
# at 128, all 256 from 512). The JSON shows experts_touched.
set -eu
IC=${INFCALC:-build/src/infcalc}
$IC --model deepseek-v3 --hw h200 --chips 8 --weights fp8 --kv fp8 --compute fp8 --context 8192 \
    --sweep batch
$IC --model deepseek-v3 --hw h200 --chips 8 --weights fp8 --kv fp8 --compute fp8 --context 8192 \
    --batch 4 --format json
