#!/bin/sh
# `make demo`: run the demo server under the preload with a trigger on report_slow_request,
# then decode the snapshot.  Usage: tests/demo.sh BUILD
set -e
build=$(cd "${1:-build}" && pwd)
out=$build/demo
rm -rf "$out"
echo "== running: MTINJECT_TRIGGER=report_slow_request LD_PRELOAD=$build/libmtinject.so $build/tests/programs/demo"
MTINJECT_TRIGGER=report_slow_request MTINJECT_OUTPUT="$out" MTINJECT_LOG=info \
	LD_PRELOAD="$build/libmtinject.so" "$build/tests/programs/demo"
echo "== hit recorded in $out/hits.jsonl:"
cat "$out/hits.jsonl"
echo "== decoding: $build/mtinject decode $out -o $out/trace.json"
"$build/mtinject" decode "$out" -o "$out/trace.json"
"$build/mtinject" decode "$out" -o "$out/trace.fxt" --quiet 2>/dev/null || true
cat <<MSG

The trace of the moments before the slow request is in:
    $out/trace.json   (Chrome JSON: chrome://tracing, or https://ui.perfetto.dev -> "Open trace file")
    $out/trace.fxt    (Fuchsia trace format: https://ui.perfetto.dev)
Look at the worker thread that called report_slow_request: rebuild_cache_entry is the slow path.
MSG
