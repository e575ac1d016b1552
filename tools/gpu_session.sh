#!/usr/bin/env bash
# Everything the GPU machine records for the fixtures, in one go (after the staged wheels are installed:
# see ../shared/device/README.md). Usage: bash tools/gpu_session.sh PART OUTDIR
#   PART: evidence | census | binding | watch | accuracy | tests | cli | corpus | corpus2
set -u
part=$1; out=$2; mkdir -p "$out"
export PYTHONUNBUFFERED=1
case "$part" in
  evidence) python3 tools/record_gpu_evidence.py "$out/gpu" ;;
  census)   python3 tools/verify_census.py "$out/census" --backend cupti-python
            python3 tools/verify_census.py "$out/census" --backend torch-profiler ;;
  binding)  python3 tools/record_binding_ab.py "$out/binding_ab" --runs 50 --budget 3 ;;
  watch)    python3 tools/record_watch.py "$out/watch" ;;
  pipelines) python3 tools/record_pipelines.py "$out/pipelines" ;;
  accuracy) python3 tools/accuracy_harness.py --tar .gpu_extra/onnx-node-models.tar.gz --out "$out/accuracy" ;;
  tests)    python3 -m pytest -q -m gpu -p no:cacheprovider ;;
  corpus)   python3 tools/export_corpus.py /tmp/corpus --jobs 12 --timeout 150 --deadline 170 > "$out/export.log" 2>&1
            python3 tools/record_corpus.py /tmp/corpus "$out/rec" --timeout 90 --runs 30 --parallel 2 --budget 230 \
              --pack > "$out/record.log" 2>&1
            mv "$out"/rec/corpus-*.tar.gz "$out"/; rm -rf "$out/rec" ;;
  corpus2)  # round 2 of issue 11: the models whose export or recording predates a fix (ONLY overrides the list)
            only=${ONLY:-bert_tiny_fp16,ocr_rec_minus1,roberta_tiny,ml_tree_matmul}
            python3 tools/export_corpus.py /tmp/corpus2 --only "$only" --jobs 4 --timeout 150 --deadline 170 \
              > "$out/export2.log" 2>&1
            python3 tools/record_corpus.py /tmp/corpus2 "$out/rec" --only "$only" --timeout 90 --runs 30 --parallel 2 \
              > "$out/record2.log" 2>&1
            mkdir -p "$out/models2"; mv "$out"/rec/models/*.json.gz "$out/models2/"; rm -rf "$out/rec" ;;
  cli)      python3 -m ortcopy_doctor env; python3 -m ortcopy_doctor demo --html "$out/demo.html" ;;
  checkjson) # the check --json files replayed byte for byte (tests/fixtures/check_json, tests/fixtures/scale)
            python3 tools/record_check_json.py "$out/check_json" ;;
  realmodels) # issue 36: real models (carried in .gpu/models, never committed) checked with no flags on CUDA;
            # every code block's check, per model (tools/code_check_table.py)
            python3 tools/real_corpus.py "${MODELS:-/root/models}" --out /tmp/real > "$out/real_corpus.md" 2>&1
            python3 tools/code_check_table.py /tmp/real --json "$out/real_code_checks.json" > "$out/real_code_checks.md" 2>&1
            tar czf "$out/real_reports.tar.gz" -C /tmp/real . ;;
  codecorpus) # issue 36: the corpus exported and recorded (every code block run next to plain run() inside check)
            python3 tools/export_corpus.py /tmp/corpus --jobs 12 --timeout 150 --deadline 170 > "$out/export.log" 2>&1
            python3 tools/record_corpus.py /tmp/corpus /tmp/rec --timeout 90 --runs 10 --parallel 2 --budget 300 \
              > "$out/record.log" 2>&1
            python3 tools/code_check_table.py /tmp/rec --json "$out/corpus_code_checks.json" \
              > "$out/corpus_code_checks.md" 2>&1 ;;
esac
