#!/bin/sh
# unit.monitoring_rules: promtool checks monitoring/cpha-rules.yml (syntax,
# PromQL, templates, its linter) and runs every unit test in
# monitoring/tests/*.yml, and checks the lab's peer-rules.yml. Usage: promtool-test.sh [PROMTOOL]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
promtool=${1:-}
if [ -z "$promtool" ] || [ ! -x "$promtool" ]; then
	promtool=$(command -v promtool || true)
fi
if [ -z "$promtool" ]; then
	echo "FAIL: promtool not found: it checks and tests monitoring/cpha-rules.yml;" \
		"install Debian's prometheus package (scripts/setup.sh does)"
	exit 1
fi
"$promtool" check rules "$here/../cpha-rules.yml"
# the lab's rules for the peer stack (the community's, for HAProxy's exporter)
"$promtool" check rules "$here/../../control-plane/lab/cphalab/peer-rules.yml"
cd "$here"
"$promtool" test rules ./*.yml
cd peer
"$promtool" test rules ./*.yml
