#!/bin/sh
# A stand-in for cglint-probe in tests: prints the recording named by $FAKE_PROBE_OUT (only its
# identity line under --identity) and exits with $FAKE_PROBE_RC (default 0); with $FAKE_PROBE_ARGS
# set, writes its arguments there.
[ -z "${FAKE_PROBE_ARGS:-}" ] || echo "$*" >"$FAKE_PROBE_ARGS"
if [ "$1" = "--identity" ]; then
	grep '"kind": *"identity"' "$FAKE_PROBE_OUT"
else
	cat "$FAKE_PROBE_OUT"
fi
exit "${FAKE_PROBE_RC:-0}"
