#!/bin/sh
# Set up a demo organization (once) and start Sleuth. Called by `make demo`.
# State lives in .demo/ (the SQLite database and the demo API key); `make clean` removes it.
# While the service starts, scripts/demo_alert.py (in the background) creates the demo alert agent
# once and posts a sample PagerDuty incident, so there is an investigation to open.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="${BIN:-.venv/bin}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
mkdir -p .demo
export SLEUTH_DATABASE_URL="${SLEUTH_DATABASE_URL:-sqlite:///$(pwd)/.demo/sleuth.db}"
export SLEUTH_PUBLIC_URL="${SLEUTH_PUBLIC_URL:-http://$HOST:$PORT}"
sleuth="$BIN/sleuth"

if [ ! -s .demo/api-key ]; then
    "$sleuth" admin create-org Demo --plan team >/dev/null
    "$sleuth" admin create-key Demo --admin \
        | "$BIN/python" -c 'import json,sys; print(json.load(sys.stdin)["key"])' > .demo/api-key.tmp
    mv .demo/api-key.tmp .demo/api-key
    "$sleuth" admin add-webhook Demo --type PROVIDER_A --name "Demo pager" >/dev/null
    "$sleuth" admin add-integration Demo --kind CHAT_ALERT --name "#incidents" --channel C0INCIDENTS >/dev/null
fi
# Every start reloads the demo logs to end now, so the sample incident is always in "the last
# 6 hours" (unchanged runbooks keep their IDs).
"$sleuth" admin load-demo Demo >/dev/null
KEY=$(cat .demo/api-key)
HOOK=$("$sleuth" admin list-webhooks Demo | "$BIN/python" -c '
import json, sys
print(json.dumps(next(h for h in json.load(sys.stdin)["items"] if h["name"] == "Demo pager")))')

cat <<MSG

Sleuth demo organization "Demo" is ready. API key: $KEY

Open the web app first: $SLEUTH_PUBLIC_URL/
(sign in with the API key above), or ask the agent over the API, for example:

  curl -s $SLEUTH_PUBLIC_URL/api/v1/interactions \\
    -H 'X-Service-Org-Api-Key: $KEY' -H 'Content-Type: application/json' \\
    -d '{"question": "Why is checkout failing? What errors did payments-api log in the last 6 hours?"}'

The operator CLI is $BIN/sleuth; point it at the demo database first:

  export SLEUTH_DATABASE_URL=$SLEUTH_DATABASE_URL
  $BIN/sleuth admin list-keys Demo

Starting the service on $SLEUTH_PUBLIC_URL (Ctrl-C stops it). Once it is up, a sample
PagerDuty incident is posted to the "Demo pager" subscription and its investigation's page is
printed here.
MSG
# $$ is this shell, which becomes `sleuth serve` below: the helper stops when it exits.
DEMO_KEY="$KEY" DEMO_HOOK="$HOOK" DEMO_SERVER_PID=$$ DEMO_MARKER=.demo/alert-agent \
    DEMO_ALERT="$ROOT/examples/alert-payloads/pagerduty/incident_triggered.json" \
    "$BIN/python" "$ROOT/scripts/demo_alert.py" &
exec "$sleuth" serve --host "$HOST" --port "$PORT"
