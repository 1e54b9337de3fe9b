#!/usr/bin/env bash
# Builds gpualert and wraps a real training script that really fails, with
# nothing configured: the verdict goes to stderr, the message to the local outbox.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target gpualert gpualert_send >/dev/null
demo=$(mktemp -d /tmp/gpualert-demo.XXXXXX)
export GPUALERT_STATE_DIR=$demo/state
echo "== gpualert run -- python3 examples/diverging_training.py   (state in $demo/state)"
set +e
"$root/build/bin/gpualert" run --run-dir "$demo/run" -- /usr/bin/python3 "$root/examples/diverging_training.py"
status=$?
set -e
echo
echo "== the wrapper exited with $status, exactly as the training script did"
echo "== verdict.json:"
cat "$demo/run/verdict.json"
msg=$(ls "$demo"/state/outbox/pending/*.eml | head -1)
echo
echo "== the message waiting in the local outbox ($msg), text part:"
/usr/bin/python3 - "$msg" <<'PY'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
print("Subject:", m["Subject"])
for part in m.walk():
    if part.get_filename():
        print("[attachment]", part.get_filename(), len(part.get_payload(decode=True)), "bytes")
    elif part.get_content_type() == "text/plain":
        print(part.get_content())
PY
