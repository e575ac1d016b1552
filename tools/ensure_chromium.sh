#!/bin/sh
# `make chromium` (part of `make test`): tests/project/test_browser.py opens the HTML reports in headless chromium.
# Installs Debian's chromium only where it is missing, and says so first; where the user is not root (or the
# install fails) it does not fail: it prints one line, and the browser tests skip with their reason.
for candidate in "${CHROMIUM:-}" "$(command -v chromium 2>/dev/null)" /usr/bin/chromium; do
	if [ -n "$candidate" ] && [ -x "$candidate" ]; then
		exit 0
	fi
done
if [ "$(id -u)" != "0" ]; then
	echo "chromium not found and not root: skipping the browser tests (tests/project/test_browser.py); install Debian's chromium or set CHROMIUM=/path/to/chromium to run them"
	exit 0
fi
echo "chromium not found: installing Debian's chromium (apt-get install --no-install-recommends chromium) for the browser tests (tests/project/test_browser.py)"
log=$(mktemp)
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
	echo "chromium could not be installed ($(tail -n 1 "$log")): skipping the browser tests (tests/project/test_browser.py)"
fi
rm -f "$log"
exit 0
